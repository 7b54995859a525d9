-- The tier loader's check of a page's ids before it reads their rows whole: which of them the shard's pool
-- lacks in any state (a tombstone, a pending delete, a finished job not yet purged all count as present).
-- Changes nothing: tier_load checks each id it is given again, under the watermark.
-- KEYS: pool. ARGV: ids. Returns the ids the pool lacks, in the order given.
local absent = {}
for i = 1, #ARGV do
  if redis.call('HEXISTS', KEYS[1], ARGV[i]) == 0 then
    absent[#absent + 1] = ARGV[i]
  end
end
return absent
