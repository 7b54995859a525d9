package io.delayqueue.queue.journal.mybatis;

import io.delayqueue.queue.testing.JournalDatabase;

/** The journal contract on the machine's MariaDB through MariaDB's own driver ({@code jdbc:mariadb:}). */
class MyBatisJournalMariaDbDriverTest extends MyBatisJournalContract {
    @Override
    JournalDatabase openDatabase() {
        return JournalDatabase.mariaDbWithMariaDbDriver();
    }
}
