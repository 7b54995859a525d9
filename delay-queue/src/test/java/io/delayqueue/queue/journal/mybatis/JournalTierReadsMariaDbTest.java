package io.delayqueue.queue.journal.mybatis;

import io.delayqueue.queue.testing.JournalDatabase;

/** The tier loader's and the reconciler's reads on MariaDB. */
class JournalTierReadsMariaDbTest extends JournalTierReadsContract {
    @Override
    JournalDatabase openDatabase() {
        return JournalDatabase.mariaDb();
    }
}
