-- The fail-over protocol's mark (engine.failover.FailoverProtocol): KEYS[1] the shard's replayed-onto key (see
-- master_agreed in lib.lua). ARGV[1]: '' to read only; else the replication id of the master the journal's window
-- was replayed onto, stored only if it is still this master's (a master that changed again meanwhile stays gated).
-- Returns { this master's replication id (false: none, not gated), the replication id replayed onto (false: none) }.
local id = master_id()
if ARGV[1] ~= '' and id == ARGV[1] then
  redis.call('SET', KEYS[1], id)
end
return { id or false, redis.call('GET', KEYS[1]) or false }
