-- Deletes up to `limit` not-yet-delivered jobs of one shard: DELAY jobs in the bucket from rank `offset`
-- on (RESERVED entries are left where they are and counted, so the caller moves its offset past them), then
-- READY jobs popped from the ready lists. ARGV: tag, now, retention, limit, offset.
-- Returns { deleted ids, reserved entries kept, bucket entries looked at }.
local tag = ARGV[1]
local purgeAt = tonumber(ARGV[2]) + tonumber(ARGV[3])
local limit = tonumber(ARGV[4])
local deleted, kept = {}, 0
local ids = redis.call('ZRANGE', KEYS[2], ARGV[5], tonumber(ARGV[5]) + limit - 1)
for _, id in ipairs(ids) do
  local v = redis.call('HGET', KEYS[1], id)
  local j = v and parse(v)
  if j and j.st == 'RESERVED' then
    kept = kept + 1
  else
    redis.call('ZREM', KEYS[2], id)
    if j and j.st == 'DELAY' then
      redis.call('ZADD', KEYS[4], purgeAt, id)
      transition(id, j, 'DELETED')
      deleted[#deleted + 1] = id
    end
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
        redis.call('ZADD', KEYS[4], purgeAt, id)
        transition(id, j, 'DELETED')
        deleted[#deleted + 1] = id
      end
    end
  end
end
return { deleted, kept, #ids }
