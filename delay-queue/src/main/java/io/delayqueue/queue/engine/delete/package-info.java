/**
 * The delete protocol: begin, commit, confirm, undo, settle and redo of every delete (one job, a {@code clearAll}
 * batch, the reconciler's settling), kept in step between Redis and the journal. Owner: {@link DeleteProtocol}.
 */
package io.delayqueue.queue.engine.delete;
