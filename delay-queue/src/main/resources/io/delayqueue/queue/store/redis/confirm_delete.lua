-- The journal committed these deletes: they are final, and purged once the retention ends.
-- ARGV: now, retention, ids... Returns how many were pending.
local purgeAt = tonumber(ARGV[1]) + tonumber(ARGV[2])
local n = 0
for i = 3, #ARGV do
  local id = ARGV[i]
  if redis.call('ZREM', KEYS[5], id) == 1 then
    redis.call('HDEL', KEYS[6], id)
    redis.call('ZADD', KEYS[4], purgeAt, id)
    n = n + 1
  end
end
return n
