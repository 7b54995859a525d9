-- Adds jobs that are not in the pool yet (also used by restore). A DELAY job goes into the bucket at its
-- due time; a DEAD job (restored) back into its topic's dead set.
-- KEYS: pool, bucket, counts, done, topics, topic-jobs (see lib.lua), then the dead set of each topic of a DEAD job
-- in the call. ARGV: triples id, value, due. Returns 1 (created) or 0 (id exists) per job.
-- The counts and the topics' counts are written once per script, not once per job.
-- each DEAD job's dead set must be declared: checked before the first write, so a mistake changes nothing
for i = 2, #ARGV, 3 do
  if string.sub(ARGV[i], 1, 5) == 'DEAD|' then
    topic_key('dead', parse(ARGV[i]).topic)
  end
end
local out = {}
for i = 1, #ARGV, 3 do
  local id = ARGV[i]
  if redis.call('HSETNX', KEYS[1], id, ARGV[i + 1]) == 1 then
    local j = parse(ARGV[i + 1])
    if j.st == 'DEAD' then
      redis.call('ZADD', topic_key('dead', j.topic), num(j.due), id)
    else
      redis.call('ZADD', KEYS[2], ARGV[i + 2], id)
    end
    count(j.st, 1)
    if live(j.st) then count_topic(j.topic, 1) end
    out[#out + 1] = 1
  else
    out[#out + 1] = 0
  end
end
return out
