package io.delayqueue.queue.journal.mybatis;

import io.delayqueue.queue.testing.JournalDatabase;

/** Journal retention on H2 in MySQL mode (the embedded default before SQLite; still supported), in a database of the test's own. */
class JournalRetentionH2Test extends JournalRetentionContract {
    @Override
    JournalDatabase openDatabase() {
        return JournalDatabase.h2();
    }
}
