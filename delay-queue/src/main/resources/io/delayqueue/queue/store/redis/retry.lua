-- A send failed: counts the attempt and schedules the RESERVED job again at retryAt, or makes it DEAD
-- past maxAttempts (added to the topic's dead set, scored by its last due time).
-- ARGV: tag, id, retryAt. Returns { 1, new status }, { 0, false } or { 2, status }.
local id = ARGV[2]
local v = redis.call('HGET', KEYS[1], id)
if not v then return { 0, false } end
local j = parse(v)
if j.st ~= 'RESERVED' then return { 2, j.st } end
j.at = j.at + 1
if j.at >= j.max then
  redis.call('ZREM', KEYS[2], id)
  redis.call('ZADD', ARGV[1] .. ':dead:' .. j.topic, num(j.due), id)
  transition(id, j, 'DEAD')
  return { 1, 'DEAD' }
end
j.due = tonumber(ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[3], id)
transition(id, j, 'DELAY')
return { 1, 'DELAY' }
