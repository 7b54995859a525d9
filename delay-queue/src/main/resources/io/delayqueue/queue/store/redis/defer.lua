-- Puts back RESERVED jobs whose send was not attempted (their topic or dispatcher had no room, the dispatcher
-- turned them away, or this instance stopped owning their shard before handing them over): DELAY again at the
-- given time, no attempt counted. The due time in the header stays, so a job put back again and again keeps
-- its real lateness.
-- ARGV: triples of id, at, attempt (see stale). Returns per id: 1, 'DELAY' when put back; 0, false when
-- unknown; 3, status when the attempt is stale; 2, status otherwise (the reservation ended meanwhile).
local out = {}
for i = 1, #ARGV, 3 do
  local id = ARGV[i]
  local v = redis.call('HGET', KEYS[1], id)
  if not v then
    add_reply(out, not_found())
  else
    local j = parse(v)
    if stale(j, ARGV[i + 2]) then
      add_reply(out, stale_attempt(j.st))
    elseif j.st == 'RESERVED' then
      redis.call('ZADD', KEYS[2], ARGV[i + 1], id)
      transition(id, j, 'DELAY')
      add_reply(out, applied('DELAY'))
    else
      add_reply(out, conflict(j.st))
    end
  end
end
return out
