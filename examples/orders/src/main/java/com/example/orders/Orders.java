package com.example.orders;

import io.delayqueue.client.DelayQueueClient;
import io.delayqueue.client.PushRequest;
import io.delayqueue.client.PushResult;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.stereotype.Service;

/**
 * The orders, in memory (an example: a real service keeps them in its database), and the jobs they give the queue.
 * Each job's id is derived from the order, so that placing or paying again never makes a second job.
 */
@Service
public class Orders {
    static final String CLOSE_TOPIC = "order-close";
    static final String RECEIPT_TOPIC = "order-receipt";

    private final Map<String, Order> orders = new ConcurrentHashMap<>();
    private final DelayQueueClient queue;
    private final OrdersProperties settings;

    public Orders(DelayQueueClient queue, OrdersProperties settings) {
        this.queue = queue;
        this.settings = settings;
    }

    /** Places an order, and has the queue close it if it is still unpaid after the set time. */
    public Order place() {
        Order order = new Order(UUID.randomUUID().toString(), Order.Status.PLACED);
        orders.put(order.id(), order);
        PushResult pushed = queue.push(PushRequest.builder(CLOSE_TOPIC, order.id())
                .id("close-" + order.id())
                .delay(settings.closeUnpaidAfter())
                .url(settings.callbackUrl())
                .build());
        if (!pushed.isAccepted()) {
            orders.remove(order.id());
            throw new IllegalStateException("the queue did not take the order's close job: " + pushed);
        }
        return order;
    }

    /** Pays an order still placed, and has the queue confirm its receipt after the set time. */
    public Optional<Order> pay(String id) {
        Order paid = orders.computeIfPresent(
                id, (k, order) -> order.status() == Order.Status.PLACED ? order.with(Order.Status.PAID) : order);
        if (paid == null || paid.status() != Order.Status.PAID) {
            return Optional.ofNullable(paid);
        }
        PushResult pushed = queue.push(PushRequest.builder(RECEIPT_TOPIC, id)
                .id("receipt-" + id)
                .delay(settings.confirmReceiptAfter())
                .build());
        if (!pushed.isAccepted()) {
            throw new IllegalStateException("the queue did not take the receipt job: " + pushed);
        }
        return Optional.of(paid);
    }

    public Optional<Order> find(String id) {
        return Optional.ofNullable(orders.get(id));
    }

    /** Closes the order if nobody paid it; true when it did. */
    boolean closeIfUnpaid(String id) {
        Order after = orders.computeIfPresent(
                id, (k, order) -> order.status() == Order.Status.PLACED ? order.with(Order.Status.CLOSED) : order);
        return after != null && after.status() == Order.Status.CLOSED;
    }

    void confirmReceipt(String id) {
        orders.computeIfPresent(
                id, (k, order) -> order.status() == Order.Status.PAID ? order.with(Order.Status.RECEIVED) : order);
    }
}
