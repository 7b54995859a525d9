-- Acknowledges RESERVED jobs. KEYS: pool, bucket, counts, done, topics, topic-jobs. ARGV: now, retention, then pairs of id, attempt (see stale).
-- Returns per id: 1, 'FINISHED' when finished now; 0, false when unknown; 3, status when the attempt is stale;
-- 2, status otherwise.
local retention = tonumber(ARGV[2])
local out = {}
for i = 3, #ARGV, 2 do
  local id = ARGV[i]
  local v = redis.call('HGET', KEYS[1], id)
  if not v then
    add_reply(out, not_found())
  else
    local j = parse(v)
    if stale(j, ARGV[i + 1]) then
      add_reply(out, stale_attempt(j.st))
    elseif j.st == 'RESERVED' then
      redis.call('ZREM', KEYS[2], id)
      redis.call('ZADD', KEYS[4], tonumber(ARGV[1]) + retention, id)
      transition(id, j, 'FINISHED')
      add_reply(out, applied('FINISHED'))
    else
      add_reply(out, conflict(j.st))
    end
  end
end
return out
