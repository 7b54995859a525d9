-- The journal refused these deletes: each pending one is put back as it was (a DELAY job into the bucket at
-- its score, a READY job back onto its ready list) and a tombstone is removed.
-- KEYS: pool, bucket, counts, done, deleting, delete-undo, then topic keys (see lib.lua; the ready list of each
-- READY job put back is needed). ARGV: ids... (at most ShardKeys.MAX_NAMED_TOPICS a run, so that one reply can
-- name every topic the run lacks).
-- Returns the ids put back, each followed by its due time (for the scanner's wake-up; false for a tombstone), or
-- undeclared_topics() (nothing done) when a ready list needed was not declared.
local befores = {}
for i = 1, #ARGV do
  local before = redis.call('HGET', KEYS[6], ARGV[i])
  befores[i] = before
  if before and string.sub(before, 1, 1) == '|' then
    need_topic_key('ready', parse(string.sub(before, 2)).topic)
  end
end
if #undeclared > 0 then return undeclared_topics() end
local out = {}
for i = 1, #ARGV do
  local id = ARGV[i]
  local before = befores[i]
  if before and redis.call('ZREM', KEYS[5], id) == 1 then
    redis.call('HDEL', KEYS[6], id)
    local v = redis.call('HGET', KEYS[1], id)
    if v then count('DELETED', -1) end
    if before == '' then
      redis.call('HDEL', KEYS[1], id)
      out[#out + 1] = id
      out[#out + 1] = false
    else
      local bar = string.find(before, '|', 1, true)
      local score, value = string.sub(before, 1, bar - 1), string.sub(before, bar + 1)
      local j = parse(value)
      redis.call('HSET', KEYS[1], id, value)
      count(j.st, 1)
      if score ~= '' then
        redis.call('ZADD', KEYS[2], score, id)
      else
        redis.call('RPUSH', topic_key('ready', j.topic), id)
      end
      out[#out + 1] = id
      out[#out + 1] = num(j.due)
    end
  end
end
return out
