-- Loads one page of journal rows of the shard (DELAY jobs read in (due, id) order) into the pool and bucket, and
-- advances the shard's loaded cursor (KEYS[5] tier HASH, field 'loaded', 'due|id': every DELAY job of the
-- shard up to it is loaded, or was admitted or pushed). Only rows beyond the cursor are loaded, each only if the
-- pool lacks its id in any state (HSETNX): a tombstone, a pending or confirmed delete, a finished job not yet
-- purged all keep the job out, so a loader racing a delete never revives it.
-- Refused whole, in this order (TierProtocol's table):
--   the owner's epoch (KEYS[6]) is fenced as move_due's is: the shard's epoch alone;
--   the page was read longer ago than maxAge: { -1 } (a deleted job's tombstone is purged after the final-job
--   retention, which start-up keeps far above maxAge, so a stale page can never meet a job whose tombstone is gone);
--   the intent the page was read under is gone: { -2 } when the hash's token is not the one the intent was raised
--   under, or its intent is below the one read up to (Redis restarted empty, or a replica that never got the raise
--   took over): a push committed since was left to the loader, and the page, read before, does not hold it;
--   the cursor is gone and the page does not start from the first row: { -3 } (moving the cursor would skip the
--   rows before the page).
-- KEYS: pool, bucket, counts, done, tier, epoch, topics, topic-jobs (see lib.lua). ARGV: epoch, readAt, now,
-- maxAge, cursor due, cursor id (the page's end), token and intent read under, 1 when the page starts from the
-- first row (else 0), then triples id, value, due.
-- Returns { ids loaded, earliest due loaded or false }, or a refusal above.
local refused = fence(KEYS[6], ARGV[1])
if refused then
  return refused
end
if tonumber(ARGV[3]) - tonumber(ARGV[2]) > tonumber(ARGV[4]) then
  return { -1 }
end
if redis.call('HGET', KEYS[5], 'token') ~= ARGV[7]
    or tonumber(redis.call('HGET', KEYS[5], 'intent') or '0') < tonumber(ARGV[8]) then
  return { -2 }
end
local loaded = redis.call('HGET', KEYS[5], 'loaded')
if not loaded and ARGV[9] ~= '1' then
  return { -3 }
end
local ldue, lid = nil, ''
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
for i = 10, #ARGV, 3 do
  local id, v, due = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2])
  if beyond(due, id) and redis.call('HSETNX', KEYS[1], id, v) == 1 then
    local j = parse(v)
    redis.call('ZADD', KEYS[2], ARGV[i + 2], id)
    count(j.st, 1)
    count_topic(j.topic, 1)
    loadedIds[#loadedIds + 1] = id
    if earliest == nil or due < earliest then earliest = due end
  end
end
local cdue = tonumber(ARGV[5])
if beyond(cdue, ARGV[6]) then
  redis.call('HSET', KEYS[5], 'loaded', num(cdue) .. '|' .. ARGV[6])
end
return { loadedIds, earliest and num(earliest) or false }
