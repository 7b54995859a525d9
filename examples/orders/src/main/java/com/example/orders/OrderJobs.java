package com.example.orders;

import io.delayqueue.client.Job;
import io.delayqueue.client.callback.VerifiedCallback;
import io.delayqueue.client.spring.DelayCallback;
import io.delayqueue.client.spring.DelayListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/** What the queue hands back to the orders: both handlers are idempotent, as delivery is at least once. */
@Component
public class OrderJobs {
    private static final Logger log = LoggerFactory.getLogger(OrderJobs.class);

    private final Orders orders;

    public OrderJobs(Orders orders) {
        this.orders = orders;
    }

    /** The queue's signed callback, when the order's time to be paid is up. */
    @DelayCallback(topic = Orders.CLOSE_TOPIC)
    void closeIfUnpaid(Job job, VerifiedCallback delivery) {
        boolean closed = orders.closeIfUnpaid(job.body());
        log.info("order {}: {} (delivery {})", job.body(), closed ? "closed unpaid" : "paid, kept", delivery.attempt());
    }

    /** Taken from the pull topic when the receipt is due. */
    @DelayListener(topic = Orders.RECEIPT_TOPIC, concurrency = 2)
    void confirmReceipt(Job job) {
        orders.confirmReceipt(job.body());
        log.info("order {}: receipt confirmed", job.body());
    }
}
