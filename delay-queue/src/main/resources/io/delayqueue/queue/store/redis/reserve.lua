-- Reserves up to a number of READY jobs of a topic's ready list, oldest first, each until now + its ttr.
-- Entries of jobs that are no longer READY (deleted meanwhile) are dropped on the way, at most 1000 of them per
-- call. KEYS[5] the ready list, KEYS[6] the shard's replayed-onto key. ARGV: now, the most jobs to reserve (1 when
-- absent).
-- Returns { id, value, id, value, ... }: the jobs reserved, possibly none; 0 (nothing reserved) on a master the
-- journal was not replayed onto yet (master_agreed in lib.lua).
if not master_agreed(KEYS[6]) then
  return 0
end
local now = tonumber(ARGV[1])
local limit = tonumber(ARGV[2] or '1')
local out = {}
local dropped = 0
while #out < 2 * limit and dropped < 1000 do
  local id = redis.call('RPOP', KEYS[5])
  if not id then break end
  local v = redis.call('HGET', KEYS[1], id)
  local j = v and parse(v)
  if j and j.st == 'READY' then
    redis.call('ZADD', KEYS[2], now + j.ttr, id)
    out[#out + 1] = id
    out[#out + 1] = transition(id, j, 'RESERVED')
  else
    dropped = dropped + 1
  end
end
return out
