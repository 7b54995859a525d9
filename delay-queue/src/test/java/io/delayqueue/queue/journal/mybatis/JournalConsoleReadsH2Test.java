package io.delayqueue.queue.journal.mybatis;

import io.delayqueue.queue.testing.JournalDatabase;

/** The web console's reads on H2. */
class JournalConsoleReadsH2Test extends JournalConsoleReadsContract {
    @Override
    JournalDatabase openDatabase() {
        return JournalDatabase.h2();
    }
}
