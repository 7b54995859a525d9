-- The journal committed these deletes: they are final, and purged once the retention ends.
-- Every hold ends: a delete held by several is final once one of them committed.
-- KEYS: pool, bucket, counts, done, deleting, delete-undo, delete-holders, topics, topic-jobs. ARGV: now, retention, ids... Returns the topic of each delete that was pending (and is confirmed now).
local purgeAt = tonumber(ARGV[1]) + tonumber(ARGV[2])
local topics = {}
for i = 3, #ARGV do
  local id = ARGV[i]
  if redis.call('ZREM', KEYS[5], id) == 1 then
    redis.call('HDEL', KEYS[6], id)
    redis.call('HDEL', KEYS[7], id)
    redis.call('ZADD', KEYS[4], purgeAt, id)
    local v = redis.call('HGET', KEYS[1], id)
    topics[#topics + 1] = v and parse(v).topic or ''
  end
end
return topics
