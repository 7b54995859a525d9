-- Makes DELAY jobs due at `now` (an operator's "run now"): the bucket's score and the due time in the header
-- become `now`, nothing else changes (status, attempts). A job already due by `now` is left as it is. Only the
-- first four keys: no status or topic count changes. O(log N) per job.
-- ARGV: now, ids... Returns per id: 1, 'DELAY' when it is due now; 0, false when unknown; 2, status when the job
-- is not DELAY (a job being delivered, a dead or final one: nothing to run now).
local now = tonumber(ARGV[1])
local out = {}
for i = 2, #ARGV do
  local id = ARGV[i]
  local v = redis.call('HGET', KEYS[1], id)
  if not v then
    add_reply(out, not_found())
  else
    local j = parse(v)
    if j.st ~= 'DELAY' then
      add_reply(out, conflict(j.st))
    else
      if j.due > now then
        j.due = now
        redis.call('HSET', KEYS[1], id, render(j))
        redis.call('ZADD', KEYS[2], now, id)
      end
      add_reply(out, applied('DELAY'))
    end
  end
end
return out
