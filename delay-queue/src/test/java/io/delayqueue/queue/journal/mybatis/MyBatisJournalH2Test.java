package io.delayqueue.queue.journal.mybatis;

import io.delayqueue.queue.testing.JournalDatabase;

/** The journal contract on H2 in MySQL mode (the embedded default before SQLite; still supported): the same SQL must behave the same. */
class MyBatisJournalH2Test extends MyBatisJournalContract {
    @Override
    JournalDatabase openDatabase() {
        return JournalDatabase.h2();
    }
}
