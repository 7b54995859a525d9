-- Begins to delete dead jobs (DEAD, in their topic's dead set), as delete.lua begins a delete: each is DELETED at
-- once, out of its dead set, pending until the journal committed the delete (confirm_delete) or refused it
-- (undo_delete puts it back into its dead set: its delete-undo entry is 'D<dead-set score>|<value>').
-- KEYS: pool, bucket, counts, done, deleting, delete-undo, delete-holders, topics, topic-jobs, then topic keys (see
-- lib.lua; the dead set of each job's topic is needed). ARGV: now, topic ('': dead jobs of any topic), ids...
-- Returns per id: 1, 'DELETED' when begun (or pending already, and held once more); 0, false when unknown; 2, status
-- when it is not a dead job (of the topic: a dead job of another topic is 2, 'DEAD'); or undeclared_topics() (nothing
-- done) when a dead set needed was not declared.
local now, topic = ARGV[1], ARGV[2]
local jobs = {}
for i = 3, #ARGV do
  local v = redis.call('HGET', KEYS[1], ARGV[i])
  local j = v and parse(v)
  jobs[i] = j or false
  if j and j.st == 'DEAD' and (topic == '' or j.topic == topic) then
    need_topic_key('dead', j.topic)
  end
end
if #undeclared > 0 then return undeclared_topics() end
local out = {}
for i = 3, #ARGV do
  local id, j = ARGV[i], jobs[i]
  if not j then
    add_reply(out, not_found())
  elseif j.st == 'DELETED' and delete_pending(id) then
    hold_delete(id, now)
    add_reply(out, applied('DELETED'))
  elseif j.st ~= 'DEAD' or (topic ~= '' and j.topic ~= topic) then
    add_reply(out, conflict(j.st))
  else
    local dead = topic_key('dead', j.topic)
    local score = redis.call('ZSCORE', dead, id)
    redis.call('ZREM', dead, id)
    redis.call('HSET', KEYS[6], id, 'D' .. (score or num(j.due)) .. '|' .. render(j))
    redis.call('HSET', KEYS[7], id, 1)
    redis.call('ZADD', KEYS[5], now, id)
    transition(id, j, 'DELETED')
    add_reply(out, applied('DELETED'))
  end
end
return out
