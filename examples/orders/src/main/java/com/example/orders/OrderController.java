package com.example.orders;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
public class OrderController {
    private final Orders orders;

    public OrderController(Orders orders) {
        this.orders = orders;
    }

    @PostMapping("/orders")
    public ResponseEntity<Order> place() {
        return ResponseEntity.status(HttpStatus.CREATED).body(orders.place());
    }

    @PostMapping("/orders/{id}/pay")
    public ResponseEntity<Order> pay(@PathVariable String id) {
        return ResponseEntity.of(orders.pay(id));
    }

    @GetMapping("/orders/{id}")
    public ResponseEntity<Order> get(@PathVariable String id) {
        return ResponseEntity.of(orders.find(id));
    }
}
