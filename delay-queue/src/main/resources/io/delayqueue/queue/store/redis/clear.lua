-- Begins to delete up to `limit` not-yet-delivered jobs of one shard (see begin_delete; the caller confirms
-- or undoes them once the journal answered): DELAY jobs in the bucket from rank `offset` on (RESERVED entries
-- are left where they are and counted, so the caller moves its offset past them), then READY jobs popped from
-- the ready lists of the shard's topics.
-- KEYS: pool, bucket, counts, done, deleting, delete-undo, topics (SET of the shard's topics), then topic keys
-- (see lib.lua; the ready list of every topic in the set is needed). ARGV: now, limit, offset.
-- Returns { ids whose delete began, reserved entries kept, bucket entries looked at }, or undeclared_topics()
-- (nothing done) when a ready list needed was not declared.
local now = ARGV[1]
local limit = tonumber(ARGV[2])
local ids = redis.call('ZRANGE', KEYS[2], ARGV[3], tonumber(ARGV[3]) + limit - 1)
local topics = {}
if #ids < limit then
  topics = redis.call('SMEMBERS', KEYS[7])
  for _, topic in ipairs(topics) do
    need_topic_key('ready', topic)
  end
  if #undeclared > 0 then return undeclared_topics() end
end
local deleted, kept = {}, 0
for _, id in ipairs(ids) do
  local v = redis.call('HGET', KEYS[1], id)
  local j = v and parse(v)
  if j and j.st == 'RESERVED' then
    kept = kept + 1
  elseif j and j.st == 'DELAY' then
    begin_delete(id, j, v, now)
    deleted[#deleted + 1] = id
  else
    redis.call('ZREM', KEYS[2], id)
  end
end
for _, topic in ipairs(topics) do
  local list = topic_key('ready', topic)
  while #deleted < limit do
    local id = redis.call('RPOP', list)
    if not id then break end
    local v = redis.call('HGET', KEYS[1], id)
    local j = v and parse(v)
    if j and j.st == 'READY' then
      begin_delete(id, j, v, now)
      deleted[#deleted + 1] = id
    end
  end
end
return { deleted, kept, #ids }
