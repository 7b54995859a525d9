-- Admits far jobs whose rows were just committed: each goes into the pool and bucket as push does (HSETNX) when
-- its due time is within the shard's load intent (KEYS[5] tier HASH, 'intent'), and is left to the loader
-- otherwise. The loader raises the intent before it reads the journal, so a row its read missed (committed
-- after the read began) is admitted here; a row committed before the read is the loader's.
-- KEYS: pool, bucket, counts, done, tier, topics, topic-jobs (see lib.lua). ARGV: triples id, value, due.
-- Returns per job 1 (admitted), 0 (the pool holds the id already), 2 (left to the loader).
local intent = tonumber(redis.call('HGET', KEYS[5], 'intent') or '0')
local out = {}
for i = 1, #ARGV, 3 do
  local id = ARGV[i]
  if tonumber(ARGV[i + 2]) > intent then
    out[#out + 1] = 2
  elseif redis.call('HSETNX', KEYS[1], id, ARGV[i + 1]) == 1 then
    local j = parse(ARGV[i + 1])
    redis.call('ZADD', KEYS[2], ARGV[i + 2], id)
    count(j.st, 1)
    count_topic(j.topic, 1)
    out[#out + 1] = 1
  else
    out[#out + 1] = 0
  end
end
return out
