package com.example.orders;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.EnableConfigurationProperties;

/**
 * A small "orders" service on delay-queue: {@code POST /orders} places an order and asks the queue to close it if it
 * is still unpaid after {@code orders.close-unpaid-after} (the queue calls back {@link OrderJobs#closeIfUnpaid});
 * {@code POST /orders/{id}/pay} pays it and asks the queue to confirm its receipt after {@code
 * orders.confirm-receipt-after} (a pull topic, consumed by {@link OrderJobs#confirmReceipt}).
 *
 * <p>Its package is the business system's own, outside the service's {@code io.delayqueue} (which the service scans
 * for its components).
 */
@SpringBootApplication
@EnableConfigurationProperties(OrdersProperties.class)
public class OrdersApplication {
    /**
     * Its settings are {@code orders.yml}, not {@code application.yml}: beside the service in one class path (its
     * test), neither reads the other's.
     */
    public static final String CONFIG_NAME = "spring.config.name=orders";

    public static void main(String[] args) {
        new SpringApplicationBuilder(OrdersApplication.class)
                .properties(CONFIG_NAME)
                .run(args);
    }
}
