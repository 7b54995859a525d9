-- Moves at most `limit` entries of the bucket that are due at `now`: due DELAY jobs of pull topics go to
-- their topic's ready list (READY); due DELAY jobs of push topics become RESERVED until now + dispatch
-- timeout and are returned for dispatch; RESERVED jobs whose deadline passed (TTR expired, or a dispatch
-- that never confirmed) count an attempt and are delivered again, or go DEAD past maxAttempts.
-- With a lead, DELAY jobs of push topics due within `lead` ms after `now` are taken too (RESERVED until
-- their due time + dispatch timeout): the caller hands each over at its due time, and the round trip of
-- this move is already behind it then. Nothing else is taken before it is due.
-- Also purges up to `purge` final jobs whose retention ended. O(log N) per item, no list scans.
-- Fenced by the owner's epoch (KEYS[5], the shard's highest epoch taken): a move carrying a lower epoch than
-- the shard's is refused and moves nothing, so an owner that was paused while another took the shard over
-- cannot move its jobs when it wakes (fence, in lib.lua: a higher epoch is stored, 0 is unfenced, a negative one is
-- refused).
-- Gated by the fail-over protocol (KEYS[6], replayed-onto; master_agreed in lib.lua): on a master the journal was not
-- replayed onto yet (a promoted replica, a restarted Redis) nothing is moved, and the move answers { 'new-master' }.
-- KEYS: pool, bucket, counts, done, epoch, replayed-onto, then topic keys (see lib.lua; the ready list of each pull topic with a
-- job due, and the dead set of each topic with a job dying, are needed).
-- Topic keys not given: when the first due entry needs one, the move names the topics the batch lacks (up to
-- MAX_NAMED_TOPICS; the batch ends before the entry that would need one more) and moves nothing; when a later
-- entry needs one, the batch ends before it, and the next move starts there. Either way the move answers as
-- when more may be due, so the caller moves again at once.
-- ARGV: now, limit, defaultPull (1/0), dispatchTimeout, purge, lead, epoch, then topics routed against the
-- default. Returns dispatch (id, value pairs), ready, dead, expired (id, topic pairs), the entries moved (the
-- limit when more may be due), and when the next move is wanted (false: the bucket is empty); a refused move returns
-- the shard's epoch alone; undeclared_topics() when a topic key needed was not declared (nothing moved).
local refused = fence(KEYS[5], ARGV[7])
if refused then
  return refused
end
if not master_agreed(KEYS[6]) then
  return { 'new-master' }
end
local now = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local defaultPull = ARGV[3] == '1'
local dispatchTimeout = tonumber(ARGV[4])
local purge = tonumber(ARGV[5])
local lead = tonumber(ARGV[6])
local horizon = now + lead
local flipped = {}
for i = 8, #ARGV do flipped[ARGV[i]] = true end

local dispatch, ready, dead, expired = {}, {}, {}, {}

local function pulled(topic)
  return defaultPull ~= (flipped[topic] == true)
end

-- RESERVED for its dispatch, which starts at `from`, until from + dispatch timeout; returned for dispatch
local function take_for_dispatch(id, j, from)
  redis.call('ZADD', KEYS[2], from + dispatchTimeout, id)
  dispatch[#dispatch + 1] = id
  dispatch[#dispatch + 1] = transition(id, j, 'RESERVED')
end

local entries = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', horizon, 'LIMIT', 0, limit, 'WITHSCORES')
-- read and parse every entry's job first, so that the topic keys needed are checked before anything is written
-- (the batch is the entries up to `last`)
local values, jobs = {}, {}
local last = #entries
for k = 1, #entries, 2 do
  local v = redis.call('HGET', KEYS[1], entries[k])
  values[k] = v or false
  local j = v and parse(v)
  jobs[k] = j or false
  if j and tonumber(entries[k + 1]) <= now then
    local kind = nil
    if j.st == 'RESERVED' and j.at + 1 >= j.max then
      kind = 'dead'
    elseif (j.st == 'RESERVED' or j.st == 'DELAY') and pulled(j.topic) then
      kind = 'ready'
    end
    if kind and not declared(kind, j.topic) and ((k > 1 and #undeclared == 0) or not need_topic_key(kind, j.topic)) then
      last = k - 1
      break
    end
  end
end
if #undeclared > 0 then return undeclared_topics() end

local moved = 0
for k = 1, last, 2 do
  local id, score = entries[k], tonumber(entries[k + 1])
  local v = values[k]
  local j = jobs[k] or nil
  if score > now then
    -- not due yet (the lead): only a DELAY job of a push topic is taken now
    if j and j.st == 'DELAY' and not pulled(j.topic) then
      take_for_dispatch(id, j, score)
      moved = moved + 1
    end
  else
    moved = moved + 1
    if j and j.st == 'RESERVED' then
      j.at = j.at + 1
      expired[#expired + 1] = id
      expired[#expired + 1] = j.topic
      if j.at >= j.max then
        redis.call('ZREM', KEYS[2], id)
        redis.call('ZADD', topic_key('dead', j.topic), num(j.due), id)
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
      if pulled(j.topic) then
        redis.call('ZREM', KEYS[2], id)
        redis.call('LPUSH', topic_key('ready', j.topic), id)
        transition(id, j, 'READY')
        ready[#ready + 1] = id
        ready[#ready + 1] = j.topic
        ready[#ready + 1] = num(j.due)
      else
        take_for_dispatch(id, j, now)
      end
    elseif j then
      -- a stale entry (the job is READY or final): the bucket must not hold it
      redis.call('ZREM', KEYS[2], id)
    elseif not v then
      redis.call('ZREM', KEYS[2], id)
    end
  end
end

if purge > 0 then
  local old = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', ARGV[1], 'LIMIT', 0, purge)
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

-- The next move: the earliest entry left is due (within the lead, it is one this move left for its due
-- time, or one past the limit), or comes within the lead.
local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
local nextAt = first[2] and tonumber(first[2])
if nextAt and nextAt > horizon then
  nextAt = nextAt - lead
end
if last < #entries then
  moved = limit
end
return { dispatch, ready, dead, expired, moved, nextAt and num(nextAt) or false }
