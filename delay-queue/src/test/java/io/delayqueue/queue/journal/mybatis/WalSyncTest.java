package io.delayqueue.queue.journal.mybatis;

import static org.assertj.core.api.Assertions.assertThat;

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
                Connection c = db.connection()) {
            WalSync sync = WalSync.of(c);

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
}
