-- Tiered storage: Redis holds the jobs due within delay.tier.horizon, the journal alone the later ones, and each
-- shard's owner loads its shard's rows into Redis ahead of their due time. The loader reads one shard's DELAY
-- rows in (due_at, id) order from its watermark on, in bounded keyset pages, over this index.
-- Runs on MySQL 8 / MariaDB 10.6+ and on H2 in MySQL mode.
-- Rows written before this migration have no shard (NULL): the service fills it in at start-up, in bounded
-- batches (JobIds.shardOf(id, delay.shards)), before its loaders read the journal.
ALTER TABLE delay_queue_job ADD COLUMN shard INT NULL;

CREATE INDEX idx_dq_job_shard_status_due ON delay_queue_job (shard, status, due_at, id);
