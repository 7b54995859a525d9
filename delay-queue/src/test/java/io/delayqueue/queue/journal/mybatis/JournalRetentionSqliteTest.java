package io.delayqueue.queue.journal.mybatis;

import io.delayqueue.queue.testing.JournalDatabase;

/** Journal retention on SQLite, the embedded default, in a database of the test's own. */
class JournalRetentionSqliteTest extends JournalRetentionContract {
    @Override
    JournalDatabase openDatabase() {
        return JournalDatabase.sqlite();
    }
}
