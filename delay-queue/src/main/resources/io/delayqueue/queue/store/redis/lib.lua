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
