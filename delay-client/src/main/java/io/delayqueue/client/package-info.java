/**
 * The Java client of delay-queue: push, delete, look up and restore jobs with safe retries, consume pull topics in
 * batches, and verify signed HTTP callbacks ({@code io.delayqueue.client.callback}). Plain Java 17, no Spring.
 */
package io.delayqueue.client;
