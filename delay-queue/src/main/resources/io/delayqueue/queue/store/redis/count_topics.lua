-- Counts the shard's jobs that are not final by topic, once (see COUNTED in lib.lua): from then on the scripts keep
-- the counts and forget a topic whose count reaches 0. Rebuilds the topic set from the count, so that the topics
-- a version that did not count added and that have no job left are forgotten too. One atomic run over the pool, a
-- page of HSCAN at a time: O(jobs in the shard), at the first read of the shard's counts after an upgrade (or after
-- Redis lost its data: then the pool is empty or holds what was restored since).
-- KEYS: pool, topics, topic-jobs. Returns the topics counted, or -1 when the shard was counted already.
if redis.call('HEXISTS', KEYS[3], COUNTED) == 1 then
  return -1
end
local jobs = {}
local cursor = '0'
repeat
  local page = redis.call('HSCAN', KEYS[1], cursor, 'COUNT', 1000)
  cursor = page[1]
  local entries = page[2]
  for i = 2, #entries, 2 do
    local st, topic = string.match(entries[i], '^(%u+)|%d+|%d+|%d+|%d+|([^|]+)|')
    if st and live(st) then
      jobs[topic] = (jobs[topic] or 0) + 1
    end
  end
until cursor == '0'
redis.call('DEL', KEYS[2], KEYS[3])
local topics = 0
for topic, n in pairs(jobs) do
  redis.call('HSET', KEYS[3], topic, n)
  redis.call('SADD', KEYS[2], topic)
  topics = topics + 1
end
redis.call('HSET', KEYS[3], COUNTED, 1)
return topics
