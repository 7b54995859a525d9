-- A send failed: counts the attempt and schedules the RESERVED job again at retryAt, or makes it DEAD
-- past maxAttempts (added to the topic's dead set, scored by its last due time).
-- KEYS: pool, bucket, counts, done, then topic keys (see lib.lua; the dead set of the job's topic is needed when
-- it dies). ARGV: id, retryAt, attempt (see stale). Returns { 1, new status }, { 0, false }, { 3, status } when
-- the attempt is stale (a later one holds the job: this failure counts nothing), { 2, status }, or
-- undeclared_topics() (nothing done) when the job dies and its dead set was not declared.
local id = ARGV[1]
local v = redis.call('HGET', KEYS[1], id)
if not v then return not_found() end
local j = parse(v)
if stale(j, ARGV[3]) then return stale_attempt(j.st) end
if j.st ~= 'RESERVED' then return conflict(j.st) end
j.at = j.at + 1
if j.at >= j.max then
  need_topic_key('dead', j.topic)
  if #undeclared > 0 then return undeclared_topics() end
  redis.call('ZREM', KEYS[2], id)
  redis.call('ZADD', topic_key('dead', j.topic), num(j.due), id)
  transition(id, j, 'DEAD')
  return applied('DEAD')
end
j.due = tonumber(ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[2], id)
transition(id, j, 'DELAY')
return applied('DELAY')
