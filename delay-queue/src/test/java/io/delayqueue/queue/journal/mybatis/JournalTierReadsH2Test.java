package io.delayqueue.queue.journal.mybatis;

import io.delayqueue.queue.testing.JournalDatabase;

/** The tier loader's and the reconciler's reads on H2 in MySQL mode. */
class JournalTierReadsH2Test extends JournalTierReadsContract {
    @Override
    JournalDatabase openDatabase() {
        return JournalDatabase.h2();
    }
}
