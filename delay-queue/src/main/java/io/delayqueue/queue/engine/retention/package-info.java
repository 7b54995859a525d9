/**
 * Journal retention ({@code delay.journal.retention}): final jobs and their log rows purged from the journal in
 * short batches by the owner of shard 0. Owner: {@link JournalPurger}.
 */
package io.delayqueue.queue.engine.retention;
