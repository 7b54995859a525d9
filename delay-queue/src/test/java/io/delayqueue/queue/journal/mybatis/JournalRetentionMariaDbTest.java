package io.delayqueue.queue.journal.mybatis;

import io.delayqueue.queue.testing.JournalDatabase;

/** Journal retention on the machine's MariaDB (MySQL's driver), in a database of the test's own. */
class JournalRetentionMariaDbTest extends JournalRetentionContract {
    @Override
    JournalDatabase openDatabase() {
        return JournalDatabase.mariaDb();
    }
}
