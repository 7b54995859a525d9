-- Loads one page of journal rows of the shard (DELAY jobs read in (due, id) order) into the pool and bucket, and
-- advances the shard's loaded cursor (KEYS[5] tier HASH, field 'loaded', 'due|id': every DELAY job of the
-- shard up to it is loaded, or was admitted or pushed). Only rows beyond the cursor are loaded, each only if the
-- pool lacks its id in any state (HSETNX): a tombstone, a pending or confirmed delete, a finished job not yet
-- purged all keep the job out, so a loader racing a delete never revives it.
-- A page read longer ago than maxAge is refused whole: a deleted job's tombstone is purged after the final-job
-- retention, far longer than maxAge, so a stale page can never meet a job whose tombstone is gone.
-- Fenced by the owner's epoch (KEYS[6]) as move_due is.
-- KEYS: pool, bucket, counts, done, tier, epoch, topics (SET of the shard's topics). ARGV: epoch, readAt, now,
-- maxAge, cursor due, cursor id, then triples id, value, due.
-- Returns { ids loaded, earliest due loaded or false }, { -1 } for a stale page, or the shard's epoch when
-- refused.
local epoch = tonumber(ARGV[1])
if epoch > 0 then
  local current = tonumber(redis.call('GET', KEYS[6]) or '0')
  if current > epoch then
    return current
  elseif current < epoch then
    redis.call('SET', KEYS[6], ARGV[1])
  end
end
if tonumber(ARGV[3]) - tonumber(ARGV[2]) > tonumber(ARGV[4]) then
  return { -1 }
end
local ldue, lid = nil, ''
local loaded = redis.call('HGET', KEYS[5], 'loaded')
if loaded then
  local d, i = string.match(loaded, '^(-?%d+)|(.*)$')
  ldue, lid = tonumber(d), i
end
-- ids compared byte by byte, as the journal orders them (ascii_bin): Lua's '<' follows the server's locale
local function id_after(a, b)
  for k = 1, math.min(#a, #b) do
    local x, y = string.byte(a, k), string.byte(b, k)
    if x ~= y then return x > y end
  end
  return #a > #b
end
local function beyond(due, id)
  return ldue == nil or due > ldue or (due == ldue and id_after(id, lid))
end
local loadedIds, earliest = {}, nil
local topics = {}
for i = 7, #ARGV, 3 do
  local id, v, due = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2])
  if beyond(due, id) and redis.call('HSETNX', KEYS[1], id, v) == 1 then
    local j = parse(v)
    redis.call('ZADD', KEYS[2], ARGV[i + 2], id)
    count(j.st, 1)
    topics[j.topic] = true
    loadedIds[#loadedIds + 1] = id
    if earliest == nil or due < earliest then earliest = due end
  end
end
for topic in pairs(topics) do
  redis.call('SADD', KEYS[7], topic)
end
local cdue = tonumber(ARGV[5])
if beyond(cdue, ARGV[6]) then
  redis.call('HSET', KEYS[5], 'loaded', num(cdue) .. '|' .. ARGV[6])
end
return { loadedIds, earliest and num(earliest) or false }
