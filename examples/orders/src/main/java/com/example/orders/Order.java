package com.example.orders;

/** An order and where it stands. */
public record Order(String id, Status status) {
    public enum Status {
        PLACED,
        PAID,
        CLOSED,
        RECEIVED
    }

    Order with(Status next) {
        return new Order(id, next);
    }
}
