/**
 * The fail-over protocol: a new Redis master (a promoted replica, a restarted Redis, a slot moved to another master)
 * is scanned only after the journal's recent past was replayed onto it. {@link
 * io.delayqueue.queue.engine.failover.FailoverProtocol} owns its steps.
 */
package io.delayqueue.queue.engine.failover;
