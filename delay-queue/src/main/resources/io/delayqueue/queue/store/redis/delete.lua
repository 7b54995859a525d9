-- Begins to cancel a job that has not been handed over (DELAY or READY): see begin_delete. A READY job's
-- ready-list entry is left behind and dropped by reserve, so this stays O(log N). A job the pool lacks is
-- written as a pending DELETED tombstone from ARGV[3] when given (a job that only the journal holds), so that
-- no restore or late push can bring it into Redis alive. ARGV: now, id[, tombstone value].
-- A job pending deletion already is held once more (see hold_delete): the caller's commit settles it as well, and
-- its refusal lets go of its own hold only. KEYS: pool, bucket, counts, done, deleting, delete-undo, delete-holders, topics, topic-jobs.
-- Returns { 1, 'DELETED' } (begun, or pending already and held), { 0, false } when unknown, { 2, status } when the
-- state forbids it (a DELETED job whose delete is confirmed is { 2, 'DELETED' }).
local now, id = ARGV[1], ARGV[2]
local v = redis.call('HGET', KEYS[1], id)
if not v then
  if not ARGV[3] then return not_found() end
  redis.call('HSET', KEYS[1], id, ARGV[3])
  count('DELETED', 1)
  redis.call('HSET', KEYS[6], id, '')
  redis.call('HSET', KEYS[7], id, 1)
  redis.call('ZADD', KEYS[5], now, id)
  return applied('DELETED')
end
local j = parse(v)
if j.st == 'DELETED' and delete_pending(id) then
  hold_delete(id, now)
  return applied('DELETED')
end
if j.st ~= 'DELAY' and j.st ~= 'READY' then return conflict(j.st) end
begin_delete(id, j, v, now)
return applied('DELETED')
