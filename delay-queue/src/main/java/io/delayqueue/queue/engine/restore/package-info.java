/**
 * The restore protocol: journaled jobs that Redis lost put back without wiping anything, on demand ({@code
 * /reStore}, {@code /reStoreJob}) and by the reconciler's passes. Owner: {@link JournalRestorer}; {@link Reconciler}
 * runs the passes.
 */
package io.delayqueue.queue.engine.restore;
