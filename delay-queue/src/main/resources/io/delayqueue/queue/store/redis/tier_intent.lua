-- Raises the shard's load intent (KEYS[1] tier HASH, field 'intent', ms): the loader promises to load every job
-- of the shard due up to it. Never lowered. Runs before the loader reads the journal, so that a push committed
-- after that read began finds the intent raised and admits its job itself (tier_admit).
-- Fenced by the owner's epoch (KEYS[2]) as move_due is. ARGV: intent, epoch.
-- Returns { intent, loaded cursor 'due|id' or false }, or the shard's epoch alone when refused.
local epoch = tonumber(ARGV[2])
if epoch > 0 then
  local current = tonumber(redis.call('GET', KEYS[2]) or '0')
  if current > epoch then
    return current
  elseif current < epoch then
    redis.call('SET', KEYS[2], ARGV[2])
  end
end
local intent = tonumber(redis.call('HGET', KEYS[1], 'intent') or '0')
if tonumber(ARGV[1]) > intent then
  intent = tonumber(ARGV[1])
  redis.call('HSET', KEYS[1], 'intent', num(intent))
end
return { num(intent), redis.call('HGET', KEYS[1], 'loaded') }
