package io.delayqueue.queue.journal.mybatis;

import io.delayqueue.queue.testing.JournalDatabase;

/** The tier loader's and the reconciler's reads on SQLite, the embedded default. */
class JournalTierReadsSqliteTest extends JournalTierReadsContract {
    @Override
    JournalDatabase openDatabase() {
        return JournalDatabase.sqlite();
    }
}
