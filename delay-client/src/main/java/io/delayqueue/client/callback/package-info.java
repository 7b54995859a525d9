/**
 * Verifying delay-queue's signed HTTP callbacks on the receiver's side ({@link
 * io.delayqueue.client.callback.CallbackVerifier}): Standard Webhooks signatures (HMAC-SHA256), a timestamp
 * tolerance and an optional replay memory. Plain JDK ({@code javax.crypto}), no Spring.
 */
package io.delayqueue.client.callback;
