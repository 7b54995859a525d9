/**
 * The push protocol: requests validated into jobs, combined into rounds, journaled first, then placed in Redis (near
 * jobs) or admitted to the journal tier (far jobs); jobs answered 202 are re-admitted. Owner: {@link PushPath}.
 */
package io.delayqueue.queue.engine.push;
