package io.delayqueue.queue.journal.mybatis;

import io.delayqueue.queue.testing.JournalDatabase;

/** The journal contract on the machine's MariaDB through MySQL's driver, in a database of each test's own. */
class MyBatisJournalMariaDbTest extends MyBatisJournalContract {
    @Override
    JournalDatabase openDatabase() {
        return JournalDatabase.mariaDb();
    }
}
