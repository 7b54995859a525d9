-- Begins to delete up to `limit` not-yet-delivered jobs of one shard (see begin_delete; the caller confirms
-- or undoes them once the journal answered): DELAY jobs in the bucket from rank `offset` on (RESERVED entries
-- are left where they are and counted, so the caller moves its offset past them), then READY jobs popped from
-- the ready lists given. The caller gives the ready lists of a page of the shard's topics (RedisJobStore.clear:
-- those whose lists are not empty, at most ShardKeys.MAX_TOPICS_PER_CALL per call), never every topic at once.
-- KEYS: pool, bucket, counts, done, deleting, delete-undo, delete-holders, topics, topic-jobs, then ready lists (see
-- lib.lua).
-- ARGV: now, limit, offset ('': leave the bucket alone).
-- Returns { ids whose delete began, reserved entries kept, bucket entries looked at, READY jobs the shard holds now }
-- (none: no ready list needs emptying, so the caller reads no topic).
local now = ARGV[1]
local limit = tonumber(ARGV[2])
local ids = {}
if ARGV[3] ~= '' then
  ids = redis.call('ZRANGE', KEYS[2], ARGV[3], tonumber(ARGV[3]) + limit - 1)
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
for i = 10, #KEYS do
  local list = KEYS[i]
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
return { deleted, kept, #ids, tonumber(redis.call('HGET', KEYS[3], 'READY') or '0') + (count_deltas['READY'] or 0) }
