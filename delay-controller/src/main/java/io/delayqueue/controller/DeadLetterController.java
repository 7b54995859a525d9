package io.delayqueue.controller;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.JsonCodec;
import io.delayqueue.queue.engine.DeadLetters;
import io.delayqueue.queue.engine.DelayQueueEngine;
import jakarta.servlet.http.HttpServletRequest;
import java.util.List;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The dead letters of a topic: jobs that used up their attempts. {@code GET /dead/{topic}} lists the oldest,
 * {@code POST /dead/{topic}/requeue} brings back all of them (no body) or those named by {@code
 * {"ids":[...]}}. Errors are mapped by {@link ApiExceptionHandler}.
 */
@RestController
public class DeadLetterController {
    static final int DEFAULT_LIMIT = 100;
    private static final int REQUEST_LIMIT = 1024 * 1024;

    private final DelayQueueEngine engine;

    public DeadLetterController(DelayQueueEngine engine) {
        this.engine = engine;
    }

    /** A requeue by id. */
    public record RequeueRequest(List<String> ids) {}

    /** The oldest {@code limit} (default 100, at most 1000) dead jobs of the topic and their total. */
    @GetMapping("/dead/{topic}")
    public ResponseEntity<ApiResponse<DeadLetters.Page>> list(
            @PathVariable String topic, @RequestParam(required = false) String limit) {
        DeadLetters.Page page = engine.deadLetters().list(topic, parseLimit(limit));
        return ApiResponse.ok(page, page.total() + " dead jobs, " + page.jobs().size() + " listed");
    }

    /**
     * Requeues dead jobs of the topic: each is {@code DELAY} again, due now, with its attempts counted from
     * zero. Without a body, every dead job of the topic; with {@code {"ids":[...]}}, those (ids that name no
     * dead job of the topic are reported in {@code notRequeued}).
     */
    @PostMapping("/dead/{topic}/requeue")
    public ResponseEntity<ApiResponse<DeadLetters.Requeue>> requeue(
            @PathVariable String topic, HttpServletRequest request) {
        byte[] body = RequestBodies.read(request, REQUEST_LIMIT);
        DeadLetters.Requeue result;
        if (new String(body, java.nio.charset.StandardCharsets.UTF_8).isBlank()) {
            result = engine.deadLetters().requeueAll(topic);
        } else {
            RequeueRequest r = JsonCodec.readObject(body, RequeueRequest.class);
            if (r.ids() == null) {
                throw new DelayQueueException.InvalidField(
                        "ids", "is required in a body (send no body to requeue every dead job of the topic)");
            }
            result = engine.deadLetters().requeue(topic, r.ids());
        }
        return ApiResponse.ok(
                result,
                result.requeued() + " requeued"
                        + (result.notRequeued().isEmpty()
                                ? ""
                                : ", " + result.notRequeued().size() + " not dead jobs of " + topic));
    }

    private static int parseLimit(String limit) {
        if (limit == null || limit.isEmpty()) {
            return DEFAULT_LIMIT;
        }
        try {
            return Integer.parseInt(limit);
        } catch (NumberFormatException e) {
            throw new DelayQueueException.InvalidField("limit", "must be an integer");
        }
    }
}
