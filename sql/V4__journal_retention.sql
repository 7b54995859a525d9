-- Journal retention (delay.journal.retention): final jobs (FINISHED, DELETED) last updated before a cutoff are
-- deleted in small batches, their log rows with them. The purge finds them by status and update time; without
-- this index each batch would scan the whole job table.
-- On a large journal the index is built online (InnoDB), but it reads the whole table: apply it in a quiet hour.
CREATE INDEX idx_dq_job_status_updated ON delay_queue_job (status, update_time);
