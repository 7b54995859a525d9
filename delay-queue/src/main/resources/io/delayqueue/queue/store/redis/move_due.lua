-- Moves at most `limit` entries of the bucket that are due at `now`: due DELAY jobs of pull topics go to
-- their topic's ready list (READY); due DELAY jobs of push topics become RESERVED until now + dispatch
-- timeout and are returned for dispatch; RESERVED jobs whose deadline passed (TTR expired, or a dispatch
-- that never confirmed) count an attempt and are delivered again, or go DEAD past maxAttempts.
-- Also purges up to `purge` final jobs whose retention ended. O(log N) per item, no list scans.
-- ARGV: tag, now, limit, defaultPull (1/0), dispatchTimeout, purge, then topics routed against the default.
local tag = ARGV[1]
local now = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local defaultPull = ARGV[4] == '1'
local dispatchTimeout = tonumber(ARGV[5])
local purge = tonumber(ARGV[6])
local flipped = {}
for i = 7, #ARGV do flipped[ARGV[i]] = true end

local dispatch, ready, dead, expired = {}, {}, {}, {}
local ids = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[2], 'LIMIT', 0, limit)
for _, id in ipairs(ids) do
  local v = redis.call('HGET', KEYS[1], id)
  local j = v and parse(v)
  if j and j.st == 'RESERVED' then
    j.at = j.at + 1
    expired[#expired + 1] = id
    if j.at >= j.max then
      redis.call('ZREM', KEYS[2], id)
      redis.call('ZADD', tag .. ':dead:' .. j.topic, num(j.due), id)
      transition(id, j, 'DEAD')
      dead[#dead + 1] = id
      dead[#dead + 1] = j.topic
      j = nil
    else
      -- delivered again at once; the due time becomes the time it came back
      j.st, j.due = 'DELAY', now
      count('RESERVED', -1)
      count('DELAY', 1)
    end
  end
  if j and j.st == 'DELAY' then
    if defaultPull ~= (flipped[j.topic] == true) then
      redis.call('ZREM', KEYS[2], id)
      redis.call('LPUSH', tag .. ':ready:' .. j.topic, id)
      transition(id, j, 'READY')
      ready[#ready + 1] = id
      ready[#ready + 1] = j.topic
      ready[#ready + 1] = num(j.due)
    else
      redis.call('ZADD', KEYS[2], now + dispatchTimeout, id)
      dispatch[#dispatch + 1] = id
      dispatch[#dispatch + 1] = transition(id, j, 'RESERVED')
    end
  elseif j then
    -- a stale entry (the job is READY or final): the bucket must not hold it
    redis.call('ZREM', KEYS[2], id)
  elseif not v then
    redis.call('ZREM', KEYS[2], id)
  end
end

if purge > 0 then
  local old = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', ARGV[2], 'LIMIT', 0, purge)
  for _, id in ipairs(old) do
    local pv = redis.call('HGET', KEYS[1], id)
    if pv then
      local pj = parse(pv)
      if pj.st == 'FINISHED' or pj.st == 'DELETED' then
        redis.call('HDEL', KEYS[1], id)
        count(pj.st, -1)
      end
    end
    redis.call('ZREM', KEYS[4], id)
  end
end

local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
return { dispatch, ready, dead, expired, #ids, first[2] or false }
