-- Cancels a job that has not been handed over (DELAY or READY). A READY job's ready-list entry is left
-- behind and dropped by reserve, so this stays O(log N). ARGV: now, retention, id.
-- Returns { 1, 'DELETED' }, { 0, false } when unknown, or { 2, status } when the state forbids it.
local id = ARGV[3]
local v = redis.call('HGET', KEYS[1], id)
if not v then return { 0, false } end
local j = parse(v)
if j.st ~= 'DELAY' and j.st ~= 'READY' then return { 2, j.st } end
redis.call('ZREM', KEYS[2], id)
redis.call('ZADD', KEYS[4], tonumber(ARGV[1]) + tonumber(ARGV[2]), id)
transition(id, j, 'DELETED')
return { 1, 'DELETED' }
