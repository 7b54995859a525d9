-- Shared prelude of every delay-queue script (prepended by LuaScript, which also runs flush_counts after the
-- script's body).
--
-- A pool value (PoolValues.java) is
--   STATUS|attempts|due|ttr|maxAttempts|topic|createTime|priority|extrasLength|<extras json><body>
-- The first six fields are what the scripts read and rewrite (parse/render below); the rest, from createTime on,
-- is opaque to them: parse keeps it as `rest` and render writes it back unchanged, so no script ever decodes or
-- re-encodes a job's extras or body. (Values of earlier versions carry the job as JSON after the six fields;
-- the scripts treat that the same way.)
--
-- KEYS: every key a script touches is passed in KEYS (Redis Cluster and proxies route by them), all under the
-- shard's hash tag {<prefix>:<shard>} so that they are in one slot; no script builds a key name. The first four
-- are the same in every script that moves jobs:
--   KEYS[1] pool (HASH id -> value), KEYS[2] bucket (ZSET id -> due or reservation deadline),
--   KEYS[3] counts (HASH status -> jobs in the pool), KEYS[4] done (ZSET id -> purge time of a final job);
-- each script's header names the keys after them. Keys of one topic ('<tag>:ready:<topic>' LIST,
-- '<tag>:dead:<topic>' ZSET) are found by name among KEYS (topic_key): push declares the dead sets of the DEAD
-- jobs it restores and clear the ready lists it empties; move_due, retry and undo_delete, whose topics are known
-- only once they read the jobs, are given the keys of the topics the caller used recently in the shard (a few:
-- ShardKeys), check before they write anything that each topic they need is among them, and otherwise write
-- nothing and answer undeclared_topics() (at most MAX_NAMED_TOPICS of them): the caller runs the script again
-- with those topics' keys. A key not declared is never touched: topic_key raises an error instead.
local function parse(v)
  local st, at, due, ttr, max, topic, pos =
    string.match(v, '^(%u+)|(%d+)|(%d+)|(%d+)|(%d+)|([^|]+)|()')
  return { st = st, at = tonumber(at), due = tonumber(due), ttr = tonumber(ttr), max = tonumber(max),
           topic = topic, rest = string.sub(v, pos) }
end

local function num(x)
  return string.format('%d', x)
end

-- The owner-epoch fence of a shard's writes by its owner (move_due, tier_intent, tier_load); `key` holds the
-- highest epoch taken for the shard (RedisJobStore.takeEpoch). An epoch below it is refused (an instance that lost
-- the shard); one above it is stored (the key was lost with Redis' data, so the new owner fences again). 0: the
-- coordinator's shards never change hands (standalone), nothing to fence. A negative epoch, or none, means the
-- caller does not own the shard and is always refused: "not owned" never reads as "not fenced".
-- Returns nil when the write may go on, else the shard's epoch, which the script returns alone as its refusal.
local function fence(key, arg)
  local epoch = tonumber(arg)
  if epoch == nil or epoch < 0 then
    return tonumber(redis.call('GET', key) or '0')
  end
  if epoch > 0 then
    local current = tonumber(redis.call('GET', key) or '0')
    if current > epoch then
      return current
    elseif current < epoch then
      redis.call('SET', key, arg)
    end
  end
  return nil
end

local function render(j)
  return j.st .. '|' .. num(j.at) .. '|' .. num(j.due) .. '|' .. num(j.ttr) .. '|' .. num(j.max) .. '|'
    .. j.topic .. '|' .. j.rest
end

-- The reply of one job's transition ({ code, status }), decoded by RedisJobStore.outcome: applied (and the
-- status it has now), not found, refused because the job's status forbids it, or stale (see stale below).
local function applied(st)
  return { 1, st }
end
local function not_found()
  return { 0, false }
end
local function conflict(st)
  return { 2, st }
end
local function stale_attempt(st)
  return { 3, st }
end
-- Appends a reply of the above to the flat list of replies of a script that takes many jobs.
local function add_reply(out, r)
  out[#out + 1] = r[1]
  out[#out + 1] = r[2]
end

-- The per-topic keys declared in KEYS, by kind ('ready', 'dead') and topic; indexed on first use, so a script that
-- needs no topic key (an idle move, a retry that does not kill its job) never reads them.
local topic_keys = nil
local function declared(kind, topic)
  if not topic_keys then
    topic_keys = { ready = {}, dead = {} }
    for i = 1, #KEYS do
      local k, t = string.match(KEYS[i], '^{[^}]*}:(%l+):(.+)$')
      if k and topic_keys[k] then
        topic_keys[k][t] = KEYS[i]
      end
    end
  end
  return topic_keys[kind][topic]
end

-- The declared key of a topic; an error when the caller did not declare it. Each script looks up the topic keys
-- it needs (need_topic_key, or topic_key itself) before its first write, so that a missing one changes nothing.
local function topic_key(kind, topic)
  local key = declared(kind, topic)
  if not key then
    error('delay-queue: the ' .. kind .. ' key of topic ' .. topic .. ' is not declared in KEYS')
  end
  return key
end

-- Topics whose keys a script needs and was not given: collected by need_topic_key before the script writes
-- anything, and answered with undeclared_topics() instead of running. One reply names at most MAX_NAMED_TOPICS
-- (ShardKeys.MAX_NAMED_TOPICS), so that the run that declares them stays bounded.
local MAX_NAMED_TOPICS = 256
local undeclared = {}
local undeclared_seen = {}
-- Whether the script can have the key: true when it is declared or now named; false when the reply already
-- names MAX_NAMED_TOPICS topics (the script leaves the job that needs it, and those after it, to a later call).
local function need_topic_key(kind, topic)
  if declared(kind, topic) or undeclared_seen[topic] then
    return true
  end
  if #undeclared >= MAX_NAMED_TOPICS then
    return false
  end
  undeclared_seen[topic] = true
  undeclared[#undeclared + 1] = topic
  return true
end
local function undeclared_topics()
  return { 'undeclared-topics', undeclared }
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
-- Jobs per topic that are not final (DELAY, READY, RESERVED, DEAD), so that a topic with no job left in the shard
-- is forgotten: '<tag>:topic-jobs' (HASH topic -> jobs) and '<tag>:topics' (SET of the topics it counts, the one the
-- readers scan: RedisJobStore.stats). Both are found by name among KEYS, declared by every script that adds or
-- finalizes jobs (push, tier_admit, tier_load, finish, delete, clear, undo_delete, delete_dead); the changes of one
-- run are written once, when it ends, in the same atomic run as the jobs', so a push racing the last job's end
-- either counts after it (the topic stays) or before it (the count never reached 0). Counting begins in a shard
-- once count_topics.lua counted its pool (the field COUNTED): before, as in versions that did not count, a topic
-- is only added.
local COUNTED = '~counted'
local topic_deltas = {}
local function count_topic(topic, n)
  topic_deltas[topic] = (topic_deltas[topic] or 0) + n
end
local function live(st)
  return st ~= 'FINISHED' and st ~= 'DELETED'
end
local function flush_topic_counts()
  if next(topic_deltas) == nil then
    return
  end
  local set, jobs
  for i = 1, #KEYS do
    local kind = string.match(KEYS[i], '^{[^}]*}:(%l+%-?%l*)$')
    if kind == 'topics' then
      set = KEYS[i]
    elseif kind == 'topic-jobs' then
      jobs = KEYS[i]
    end
  end
  if not set or not jobs then
    error('delay-queue: a script that adds or finalizes jobs must declare the topics and topic-jobs keys')
  end
  local counted = redis.call('HEXISTS', jobs, COUNTED) == 1
  for topic, n in pairs(topic_deltas) do
    if counted and n ~= 0 then
      if redis.call('HINCRBY', jobs, topic, n) <= 0 then
        redis.call('HDEL', jobs, topic)
        redis.call('SREM', set, topic)
      elseif n > 0 then
        redis.call('SADD', set, topic)
      end
    elseif n > 0 then
      redis.call('SADD', set, topic)
    end
  end
end

local function flush_counts()
  for st, n in pairs(count_deltas) do
    if n ~= 0 then
      redis.call('HINCRBY', KEYS[3], st, n)
    end
  end
  flush_topic_counts()
end

-- Changes the status of a parsed job, keeps the counts in step and writes it back.
local function transition(id, j, st)
  count(j.st, -1)
  count(st, 1)
  if live(j.st) ~= live(st) then
    count_topic(j.topic, live(st) and 1 or -1)
  end
  j.st = st
  local v = render(j)
  redis.call('HSET', KEYS[1], id, v)
  return v
end

-- Deletes pending the journal. A job being deleted is DELETED at once (nothing delivers it), but stays
-- pending until the journal has committed the delete (confirm_delete) or refused it (undo_delete): KEYS[5]
-- (ZSET id -> time the latest delete of it began), KEYS[6] (HASH id -> what an undo puts back: '<bucket
-- score>|<value>', the score empty for a READY job, or '' for a tombstone of a job the pool did not hold) and
-- KEYS[7] (HASH id -> how many deletes hold it pending: each begin holds it once more, each refused commit lets
-- go of its own hold, and only the last hold let go puts the job back; absent counts as 1, a delete begun before
-- holds were counted). Only the scripts that call these pass KEYS[5] to KEYS[7].
local function begin_delete(id, j, v, now)
  local score = redis.call('ZSCORE', KEYS[2], id)
  if score then
    redis.call('ZREM', KEYS[2], id)
  end
  redis.call('HSET', KEYS[6], id, (score or '') .. '|' .. v)
  redis.call('HSET', KEYS[7], id, 1)
  redis.call('ZADD', KEYS[5], now, id)
  transition(id, j, 'DELETED')
end

local function delete_pending(id)
  return redis.call('ZSCORE', KEYS[5], id) ~= false
end

local function delete_holders(id)
  return tonumber(redis.call('HGET', KEYS[7], id) or '1')
end

-- One more delete holds a pending delete (its commit decides it as well as the others'); the latest begin
-- is its time, so that the reconciler never takes a delete whose commit may still be running for abandoned.
local function hold_delete(id, now)
  redis.call('HSET', KEYS[7], id, delete_holders(id) + 1)
  redis.call('ZADD', KEYS[5], now, id)
end

-- The fail-over gate (engine.failover.FailoverProtocol): a shard's jobs are moved (move_due) and reserved (reserve)
-- only on a master that agrees with the journal's recent past. The shard's `replayed-onto` key holds the replication
-- id (INFO replication's master_replid) of the master the journal was last replayed onto. A replica promoted to
-- master takes a new replication id, a restarted Redis draws a new one, and a slot moved to another master is on a
-- node with another: each answers "not agreed" until the shard's owner has replayed the journal's window onto it
-- and marked it (master_agreed.lua). A Redis that refuses INFO in scripts (a proxy) has no id, and is not gated.
local function master_id()
  local ok, info = pcall(redis.call, 'INFO', 'replication')
  if not ok or type(info) ~= 'string' then
    return nil
  end
  return string.match(info, 'master_replid:(%w+)')
end
local function master_agreed(key)
  local id = master_id()
  return id == nil or redis.call('GET', key) == id
end
