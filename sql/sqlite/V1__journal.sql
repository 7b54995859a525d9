-- delay-queue journal on SQLite, the embedded default (./data/delay-queue.db): the same tables, columns and
-- indexes as sql/V1__journal.sql to sql/V4__journal_retention.sql on MySQL/MariaDB, in one script, in SQLite's
-- types. STRICT tables: a value of the wrong type is refused, as on MySQL; and each text column checks MySQL's
-- length (in characters, as VARCHAR counts them), its check named after the column, so that the refusal names
-- it. Text is stored as UTF-8 and compared byte by
-- byte (BINARY), so ids are case-sensitive as in Redis. Times are epoch milliseconds.
-- A later change of the schema comes with a script here too, numbered as in sql/ (V5 and on).

-- One row per job: the job as pushed, its current status, attempts and due time, and its shard.
CREATE TABLE delay_queue_job (
    id           TEXT    NOT NULL PRIMARY KEY CONSTRAINT id CHECK (length(id) <= 128),
    topic        TEXT    NOT NULL CONSTRAINT topic CHECK (length(topic) <= 64),
    subtopic     TEXT    NULL CONSTRAINT subtopic CHECK (length(subtopic) <= 255),
    biz_key      TEXT    NULL CONSTRAINT biz_key CHECK (length(biz_key) <= 255),
    body         TEXT    NOT NULL,
    ttr          INTEGER NOT NULL,
    max_attempts INTEGER NOT NULL,
    url          TEXT    NULL CONSTRAINT url CHECK (length(url) <= 2048),
    priority     INTEGER NOT NULL,
    status       TEXT    NOT NULL CONSTRAINT status CHECK (length(status) <= 16),
    attempts     INTEGER NOT NULL,
    due_at       INTEGER NOT NULL,
    create_time  INTEGER NOT NULL,
    update_time  INTEGER NOT NULL,
    version      INTEGER NOT NULL,
    shard        INTEGER NULL
) STRICT;

-- Restore and the reconciler read non-final jobs by status and due time, in pages.
CREATE INDEX idx_dq_job_status_due ON delay_queue_job (status, due_at);
-- The tier loader reads one shard's DELAY rows in (due_at, id) order.
CREATE INDEX idx_dq_job_shard_status_due ON delay_queue_job (shard, status, due_at, id);
-- Retention finds final jobs by status and update time.
CREATE INDEX idx_dq_job_status_updated ON delay_queue_job (status, update_time);

-- One row per transition of a job; id is the rowid (INTEGER PRIMARY KEY), ascending in commit order.
CREATE TABLE delay_queue_job_log (
    id          INTEGER NOT NULL PRIMARY KEY,
    job_id      TEXT    NOT NULL CONSTRAINT job_id CHECK (length(job_id) <= 128),
    event       TEXT    NOT NULL CONSTRAINT event CHECK (length(event) <= 16),
    from_status TEXT    NULL CONSTRAINT from_status CHECK (length(from_status) <= 16),
    to_status   TEXT    NOT NULL CONSTRAINT to_status CHECK (length(to_status) <= 16),
    event_time  INTEGER NOT NULL,
    host        TEXT    NULL CONSTRAINT host CHECK (length(host) <= 255),
    worker      TEXT    NULL CONSTRAINT worker CHECK (length(worker) <= 64),
    detail      TEXT    NULL CONSTRAINT detail CHECK (length(detail) <= 1024)
) STRICT;

CREATE INDEX idx_dq_log_job ON delay_queue_job_log (job_id, id);
