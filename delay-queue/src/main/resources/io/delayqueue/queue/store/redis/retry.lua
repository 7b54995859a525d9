-- A send failed: counts the attempt and schedules the RESERVED job again at retryAt, or makes it DEAD
-- past maxAttempts (added to the topic's dead set, scored by its last due time).
-- ARGV: tag, id, retryAt, attempt (see stale). Returns { 1, new status }, { 0, false }, { 3, status } when the
-- attempt is stale (a later one holds the job: this failure counts nothing) or { 2, status }.
local id = ARGV[2]
local v = redis.call('HGET', KEYS[1], id)
if not v then return { 0, false } end
local j = parse(v)
if stale(j, ARGV[4]) then return { 3, j.st } end
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
