-- The fail-over protocol's replay (engine.failover.FailoverProtocol): makes a shard of a new master agree with the
-- journal's last transitions of its jobs. The journal is the truth for a final state and for attempts; Redis may be
-- ahead of it for the rest (transitions are journaled within the journal's lag), and is then left as it is.
-- KEYS: pool, bucket, counts, done, the shard's topics and topic-jobs (a job made final leaves its topic's count,
-- lib.lua), then the dead set of each topic of a job the journal holds DEAD.
-- ARGV: now, retention, then per job five fields: id, its journal status, attempts, score, topic. The score is the
-- reservation's deadline for a RESERVED job (until then nobody hands it over again), unused otherwise.
-- Returns one number per job:
--   0 Redis agrees already (or is ahead, or a delete of it is pending: the delete protocol settles that);
--   1 Redis lacks a job the journal holds live: the caller puts it back from the journal;
--   2 changed: made FINISHED, DELETED or DEAD as journaled, its attempts raised to the journal's, or RESERVED
--     until its deadline (the journal saw it handed over in the attempt Redis still has).
-- A final job is kept readable for `retention`, as finish and delete keep it.
local now = tonumber(ARGV[1])
local retention = tonumber(ARGV[2])
-- each DEAD job's dead set must be declared: checked before the first write, so a mistake changes nothing
for i = 3, #ARGV, 5 do
  if ARGV[i + 1] == 'DEAD' then
    topic_key('dead', ARGV[i + 4])
  end
end

-- a job that can still be handed over (DELAY, READY, RESERVED)
local function active(st)
  return st == 'DELAY' or st == 'READY' or st == 'RESERVED'
end

local out = {}
for i = 3, #ARGV, 5 do
  local id, st, at = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2])
  local v = redis.call('HGET', KEYS[1], id)
  local r = 0
  if not v then
    if active(st) then
      r = 1
    end
  else
    local j = parse(v)
    if active(j.st) then
      if j.at < at then
        j.at = at
        r = 2
      end
      if st == 'FINISHED' or st == 'DELETED' then
        redis.call('ZREM', KEYS[2], id)
        redis.call('ZADD', KEYS[4], now + retention, id)
        transition(id, j, st)
        r = 2
      elseif st == 'DEAD' then
        redis.call('ZREM', KEYS[2], id)
        redis.call('ZADD', topic_key('dead', j.topic), num(j.due), id)
        transition(id, j, 'DEAD')
        r = 2
      elseif st == 'RESERVED' and j.st ~= 'RESERVED' and j.at == at then
        redis.call('ZADD', KEYS[2], ARGV[i + 3], id)
        transition(id, j, 'RESERVED')
        r = 2
      elseif r == 2 then
        redis.call('HSET', KEYS[1], id, render(j))
      end
    end
  end
  out[#out + 1] = r
end
return out
