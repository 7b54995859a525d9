package io.delayqueue.queue.journal.mybatis;

import io.delayqueue.queue.testing.JournalDatabase;

/** The web console's reads on MariaDB. */
class JournalConsoleReadsMariaDbTest extends JournalConsoleReadsContract {
    @Override
    JournalDatabase openDatabase() {
        return JournalDatabase.mariaDb();
    }
}
