-- The journal refused these deletes, or the reconciler found them abandoned: each pending one is put back as it was
-- (a DELAY job into the bucket at its score, a READY job back onto its ready list, a DEAD job into its dead set:
-- its delete-undo entry starts with 'D', see delete_dead.lua) and a tombstone is removed, once
-- no other delete holds it (see hold_delete in lib.lua).
-- ARGV[1] '': the caller's commit was refused, and it lets go of its own hold only (another delete holding the job
-- keeps it DELETED and pending: that delete's commit settles it). ARGV[1] a time: the reconciler settles deletes
-- whose latest begin is older than it (every hold was abandoned): all holds end, and a delete begun since is left.
-- KEYS: pool, bucket, counts, done, deleting, delete-undo, delete-holders, topics, topic-jobs, then topic keys (see
-- lib.lua; the ready list of each READY job put back, and the dead set of each DEAD one, are needed). ARGV: '' or
-- begun-before, then ids... (at most ShardKeys.MAX_NAMED_TOPICS a run, so that one reply can name every topic the
-- run lacks).
-- Returns the ids put back, each followed by its due time (for the scanner's wake-up; false for a tombstone), or
-- undeclared_topics() (nothing done) when a ready list needed was not declared. An id still held, or no longer
-- pending, is not in the reply.
local begunBefore = ARGV[1] ~= '' and tonumber(ARGV[1]) or nil
local befores = {}
for i = 2, #ARGV do
  local before = redis.call('HGET', KEYS[6], ARGV[i])
  befores[i] = before
  if before and string.sub(before, 1, 1) == '|' then
    need_topic_key('ready', parse(string.sub(before, 2)).topic)
  elseif before and string.sub(before, 1, 1) == 'D' then
    need_topic_key('dead', parse(string.sub(before, string.find(before, '|', 1, true) + 1)).topic)
  end
end
if #undeclared > 0 then return undeclared_topics() end
local out = {}
for i = 2, #ARGV do
  local id = ARGV[i]
  local before = befores[i]
  local begun = before and redis.call('ZSCORE', KEYS[5], id)
  local release = begun and (begunBefore == nil or tonumber(begun) < begunBefore)
  if release and begunBefore == nil and delete_holders(id) > 1 then
    -- another delete still holds it: it stays DELETED, pending that delete's commit
    redis.call('HSET', KEYS[7], id, delete_holders(id) - 1)
    release = false
  end
  if release then
    redis.call('ZREM', KEYS[5], id)
    redis.call('HDEL', KEYS[6], id)
    redis.call('HDEL', KEYS[7], id)
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
      count_topic(j.topic, 1)
      if string.sub(score, 1, 1) == 'D' then
        redis.call('ZADD', topic_key('dead', j.topic), string.sub(score, 2), id)
      elseif score ~= '' then
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
