-- The web console's job browser lists a status newest first: keyset pages over (status, create_time, id).
CREATE INDEX idx_dq_job_status_created ON delay_queue_job (status, create_time, id);
