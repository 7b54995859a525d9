-- Begins to delete up to `limit` not-yet-delivered jobs of one shard (see begin_delete; the caller confirms
-- or undoes them once the journal answered): DELAY jobs in the bucket from rank `offset` on (RESERVED entries
-- are left where they are and counted, so the caller moves its offset past them), then READY jobs popped from
-- the ready lists. ARGV: tag, now, limit, offset.
-- Returns { ids whose delete began, reserved entries kept, bucket entries looked at }.
local tag = ARGV[1]
local now = ARGV[2]
local limit = tonumber(ARGV[3])
local deleted, kept = {}, 0
local ids = redis.call('ZRANGE', KEYS[2], ARGV[4], tonumber(ARGV[4]) + limit - 1)
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
if #ids < limit then
  for _, topic in ipairs(redis.call('SMEMBERS', tag .. ':topics')) do
    local list = tag .. ':ready:' .. topic
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
end
return { deleted, kept, #ids }
