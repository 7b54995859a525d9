-- Brings DEAD jobs of one topic back: DELAY, due at `now`, attempts counted from 0 again, out of the
-- topic's dead set. KEYS[5] the dead set (ZSET id -> last due time). O(log N) per job, never a scan.
-- ARGV: now, topic, then either 'oldest', limit (the first `limit` entries of the set) or 'ids', ids...
-- 'oldest' returns { requeued ids, entries looked at }; entries of jobs that are not DEAD (none should
-- exist) are dropped on the way. 'ids' returns per id: 1, 'DELAY' when requeued; 0, false when unknown;
-- 2, status when the job is not a dead job of this topic.
local now = ARGV[1]
local topic = ARGV[2]

local function requeue(id, j)
  redis.call('ZREM', KEYS[5], id)
  j.at, j.due = 0, tonumber(now)
  redis.call('ZADD', KEYS[2], now, id)
  transition(id, j, 'DELAY')
end

if ARGV[3] == 'oldest' then
  local ids = redis.call('ZRANGE', KEYS[5], 0, tonumber(ARGV[4]) - 1)
  local requeued = {}
  for _, id in ipairs(ids) do
    local v = redis.call('HGET', KEYS[1], id)
    local j = v and parse(v)
    if j and j.st == 'DEAD' and j.topic == topic then
      requeue(id, j)
      requeued[#requeued + 1] = id
    else
      redis.call('ZREM', KEYS[5], id)
    end
  end
  return { requeued, #ids }
end

local out = {}
for i = 4, #ARGV do
  local id = ARGV[i]
  local v = redis.call('HGET', KEYS[1], id)
  if not v then
    add_reply(out, not_found())
  else
    local j = parse(v)
    if j.st == 'DEAD' and j.topic == topic then
      requeue(id, j)
      add_reply(out, applied('DELAY'))
    else
      add_reply(out, conflict(j.st))
    end
  end
end
return out
