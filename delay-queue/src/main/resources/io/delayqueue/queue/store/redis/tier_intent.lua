-- Raises the shard's load intent (KEYS[1] tier HASH, field 'intent', ms): the loader promises to load every job
-- of the shard due up to it. Never lowered. Runs before the loader reads the journal, so that a push committed
-- after that read began finds the intent raised and admits its job itself (tier_admit).
-- The intent's 'token' names the life of the hash: set from ARGV[3] (the loader's random token) when the hash
-- has none, kept otherwise. A page is loaded only while the token and an intent at least as high as the one it
-- was read under are still there (tier_load): Redis restarted empty, or a fail-over to a replica that never got
-- the raise, loses them, and a push committed after that loss was left to the loader without the read seeing it.
-- Fenced by the owner's epoch (KEYS[2]) as move_due is. ARGV: intent, epoch, token.
-- Returns { intent, token, loaded cursor 'due|id' or false }, or the shard's epoch alone when refused.
local refused = fence(KEYS[2], ARGV[2])
if refused then
  return refused
end
local token = redis.call('HGET', KEYS[1], 'token')
if not token then
  token = ARGV[3]
  redis.call('HSET', KEYS[1], 'token', token)
end
local intent = tonumber(redis.call('HGET', KEYS[1], 'intent') or '0')
if tonumber(ARGV[1]) > intent then
  intent = tonumber(ARGV[1])
  redis.call('HSET', KEYS[1], 'intent', num(intent))
end
return { num(intent), token, redis.call('HGET', KEYS[1], 'loaded') }
