-- delay-queue journal: the durable record from which the queue is restored after Redis is lost.
-- Written for MySQL 8 / MariaDB 10.6+; also runs on H2 in MySQL mode (the embedded default).
-- Times are epoch milliseconds (BIGINT), as the engine's clock gives them.

-- One row per job: the job as pushed, its current status, attempts and due time.
CREATE TABLE delay_queue_job (
    -- ids are case-sensitive (as in Redis): a case-insensitive collation would merge 'Order-1' and 'order-1'
    id           VARCHAR(128)  CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    topic        VARCHAR(64)   NOT NULL,
    subtopic     VARCHAR(255)  NULL,
    biz_key      VARCHAR(255)  NULL,
    body         MEDIUMTEXT    NOT NULL,
    ttr          BIGINT        NOT NULL,
    max_attempts INT           NOT NULL,
    url          VARCHAR(2048) NULL,
    priority     INT           NOT NULL,
    status       VARCHAR(16)   NOT NULL,
    attempts     INT           NOT NULL,
    due_at       BIGINT        NOT NULL,
    create_time  BIGINT        NOT NULL,
    update_time  BIGINT        NOT NULL,
    version      BIGINT        NOT NULL,
    PRIMARY KEY (id)
);

-- Restore and the reconciler read non-final jobs by status and due time, in pages.
CREATE INDEX idx_dq_job_status_due ON delay_queue_job (status, due_at);

-- One row per transition of a job.
CREATE TABLE delay_queue_job_log (
    id          BIGINT        NOT NULL AUTO_INCREMENT,
    job_id      VARCHAR(128)  CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    event       VARCHAR(16)   NOT NULL,
    from_status VARCHAR(16)   NULL,
    to_status   VARCHAR(16)   NOT NULL,
    event_time  BIGINT        NOT NULL,
    host        VARCHAR(255)  NULL,
    worker      VARCHAR(64)   NULL,
    detail      VARCHAR(1024) NULL,
    PRIMARY KEY (id)
);

CREATE INDEX idx_dq_log_job ON delay_queue_job_log (job_id, id);
