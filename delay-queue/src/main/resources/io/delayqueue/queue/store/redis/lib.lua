-- Shared prelude of every delay-queue script (prepended by LuaScripts).
-- A pool value is "STATUS|attempts|due|ttr|maxAttempts|topic|<job json>". The header carries what the
-- scripts need to move a job, so no script ever decodes or re-encodes the JSON.
-- KEYS[1] pool (HASH id -> value), KEYS[2] bucket (ZSET id -> due or reservation deadline),
-- KEYS[3] counts (HASH status -> jobs in the pool), KEYS[4] done (ZSET id -> purge time of a final job).
local function parse(v)
  local st, at, due, ttr, max, topic, pos =
    string.match(v, '^(%u+)|(%d+)|(%d+)|(%d+)|(%d+)|([^|]+)|()')
  return { st = st, at = tonumber(at), due = tonumber(due), ttr = tonumber(ttr), max = tonumber(max),
           topic = topic, json = string.sub(v, pos) }
end

local function num(x)
  return string.format('%d', x)
end

local function render(j)
  return j.st .. '|' .. num(j.at) .. '|' .. num(j.due) .. '|' .. num(j.ttr) .. '|' .. num(j.max) .. '|'
    .. j.topic .. '|' .. j.json
end

-- Outcomes are fenced by attempt: a finish, retry or defer names the attempt it is the outcome of (the job's
-- attempts count when it was reserved; '' for whichever reservation the job has now). Every expired
-- reservation and every failed send counts an attempt, so an outcome whose attempt is not the job's is stale
-- (its reservation ended and the job went on without it) and changes nothing. Requeuing a dead job counts
-- from 0 again, so only an outcome older than the job's last death could pass for a current one.
local function stale(j, attempt)
  return attempt ~= '' and j.at ~= tonumber(attempt)
end

-- Jobs per status change by these amounts in this call; written to KEYS[3] once, when the script ends
-- (LuaScript wraps every script so that flush_counts runs after it), not twice per job moved.
local count_deltas = {}
local function count(st, n)
  count_deltas[st] = (count_deltas[st] or 0) + n
end
local function flush_counts()
  for st, n in pairs(count_deltas) do
    if n ~= 0 then
      redis.call('HINCRBY', KEYS[3], st, n)
    end
  end
end

-- Changes the status of a parsed job, keeps the counts in step and writes it back.
local function transition(id, j, st)
  count(j.st, -1)
  count(st, 1)
  j.st = st
  local v = render(j)
  redis.call('HSET', KEYS[1], id, v)
  return v
end

-- Deletes pending the journal. A job being deleted is DELETED at once (nothing delivers it), but stays
-- pending until the journal has committed the delete (confirm_delete) or refused it (undo_delete): KEYS[5]
-- (ZSET id -> time the delete began) and KEYS[6] (HASH id -> what an undo puts back: '<bucket score>|<value>',
-- the score empty for a READY job, or '' for a tombstone of a job the pool did not hold). Only the scripts
-- that call these pass KEYS[5] and KEYS[6].
local function begin_delete(id, j, v, now)
  local score = redis.call('ZSCORE', KEYS[2], id)
  if score then
    redis.call('ZREM', KEYS[2], id)
  end
  redis.call('HSET', KEYS[6], id, (score or '') .. '|' .. v)
  redis.call('ZADD', KEYS[5], now, id)
  transition(id, j, 'DELETED')
end

local function delete_pending(id)
  return redis.call('ZSCORE', KEYS[5], id) ~= false
end
