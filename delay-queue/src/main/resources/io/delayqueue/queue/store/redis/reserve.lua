-- Reserves the next READY job of a topic's ready list until now + ttr. Entries of jobs that are no
-- longer READY (deleted meanwhile) are dropped on the way. KEYS[5] the ready list. ARGV: now.
-- Returns { id, value } or false.
local now = tonumber(ARGV[1])
for _ = 1, 1000 do
  local id = redis.call('RPOP', KEYS[5])
  if not id then return false end
  local v = redis.call('HGET', KEYS[1], id)
  if v then
    local j = parse(v)
    if j.st == 'READY' then
      redis.call('ZADD', KEYS[2], now + j.ttr, id)
      return { id, transition(id, j, 'RESERVED') }
    end
  end
end
return false
