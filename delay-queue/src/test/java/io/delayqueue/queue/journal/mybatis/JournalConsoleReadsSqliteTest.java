package io.delayqueue.queue.journal.mybatis;

import io.delayqueue.queue.testing.JournalDatabase;

/** The web console's reads on SQLite. */
class JournalConsoleReadsSqliteTest extends JournalConsoleReadsContract {
    @Override
    JournalDatabase openDatabase() {
        return JournalDatabase.sqlite();
    }
}
