package io.delayqueue.queue.journal.mybatis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.queue.testing.JournalDatabase;
import java.sql.Connection;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * SQLite's log is forced by the journal only where the commit does not force it ({@code synchronous=NORMAL} in WAL
 * mode), and one fsync covers every commit counted before it began.
 */
class WalSyncTest {
    @Test
    void with_synchronous_normal_the_log_beside_the_file_is_forced_once_for_the_commits_before_the_fsync()
            throws Exception {
        try (JournalDatabase db = JournalDatabase.sqlite("?journal_mode=WAL&synchronous=NORMAL");
                Connection c = db.connection();
                WalSync sync = WalSync.of(c)) {
            assertThat(sync).isNotNull();
            assertThat(sync.wal()).isEqualTo(db.folder().resolve("delay-queue.db-wal"));
            assertThat(sync.wal()).exists();
            try (Statement s = c.createStatement()) {
                s.execute("DELETE FROM delay_queue_job_log WHERE job_id = 'none'");
            }
            long first = sync.committed();
            long second = sync.committed();
            sync.force(first);
            assertThat(sync.fsyncs()).isEqualTo(1);
            sync.force(second);
            assertThat(sync.fsyncs())
                    .as("the first fsync began after both commits")
                    .isEqualTo(1);
            long third = sync.committed();
            sync.force(third);
            assertThat(sync.fsyncs()).isEqualTo(2);
        }
    }

    @Test
    void with_synchronous_full_the_commit_forces_the_log_itself() throws Exception {
        try (JournalDatabase db = JournalDatabase.sqlite("?journal_mode=WAL&synchronous=FULL");
                Connection c = db.connection()) {
            assertThat(WalSync.of(c)).isNull();
        }
    }

    @Test
    void the_log_stays_one_file_when_sqlite_truncates_it_and_when_every_other_connection_closes() throws Exception {
        try (JournalDatabase db = JournalDatabase.sqlite("?journal_mode=WAL&synchronous=NORMAL")) {
            WalSync sync;
            try (Connection c = db.connection();
                    Statement s = c.createStatement()) {
                sync = WalSync.of(c);
                s.execute("INSERT INTO delay_queue_job_log (job_id, event, to_status, event_time, host, worker)"
                        + " VALUES ('a', 'CREATED', 'DELAY', 1, 'h', 'w')");
                sync.force(sync.committed());
                s.execute("PRAGMA wal_checkpoint(TRUNCATE)");
                s.execute("INSERT INTO delay_queue_job_log (job_id, event, to_status, event_time, host, worker)"
                        + " VALUES ('b', 'CREATED', 'DELAY', 2, 'h', 'w')");
                sync.force(sync.committed());
            }
            try {
                assertThat(sync.wal())
                        .as("the log, every connection but the sync's own closed")
                        .exists();
                assertThat(sync.whyUnsound()).isNull();
                sync.force(sync.committed());
                assertThat(sync.fsyncs()).isEqualTo(3);
            } finally {
                sync.close();
            }
        }
    }

    @Test
    void a_log_deleted_or_replaced_under_it_is_unsound_and_its_commits_are_not_called_forced() throws Exception {
        try (JournalDatabase db = JournalDatabase.sqlite("?journal_mode=WAL&synchronous=NORMAL");
                Connection c = db.connection()) {
            WalSync sync = WalSync.of(c);
            try {
                sync.force(sync.committed());
                java.nio.file.Files.delete(sync.wal());

                assertThat(sync.whyUnsound()).contains("deleted or replaced");
                assertThatThrownBy(() -> sync.force(sync.committed()))
                        .isInstanceOf(java.io.IOException.class)
                        .hasMessageContaining("deleted or replaced");
                assertThatThrownBy(sync::requireSound)
                        .isInstanceOf(DelayQueueException.Unavailable.class)
                        .hasMessageContaining("not written");

                java.nio.file.Files.writeString(sync.wal(), "");
                assertThat(sync.whyUnsound())
                        .as("another file at the log's path")
                        .contains("deleted or replaced");
            } finally {
                sync.close();
            }
        }
    }
}
