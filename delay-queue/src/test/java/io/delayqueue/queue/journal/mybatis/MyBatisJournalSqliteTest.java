package io.delayqueue.queue.journal.mybatis;

import io.delayqueue.queue.testing.JournalDatabase;

/** The journal contract on SQLite (WAL, synchronous=NORMAL, the log forced by WalSync), the embedded default: the same SQL must behave the same. */
class MyBatisJournalSqliteTest extends MyBatisJournalContract {
    @Override
    JournalDatabase openDatabase() {
        return JournalDatabase.sqlite();
    }
}
