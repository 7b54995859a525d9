package com.example.orders;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * @param closeUnpaidAfter how long an order may stay unpaid before it is closed
 * @param confirmReceiptAfter how long after payment the receipt is confirmed
 * @param callbackUrl where the queue calls this service back: its {@code delay.client.callback.path}, as the queue
 *     reaches it
 */
@ConfigurationProperties(prefix = "orders")
public record OrdersProperties(Duration closeUnpaidAfter, Duration confirmReceiptAfter, String callbackUrl) {}
