package io.delayqueue.controller;

import static io.delayqueue.controller.QueryParameters.EXAMPLE_TOPIC;
import static io.delayqueue.controller.QueryParameters.TOPIC_PATTERN;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.JsonCodec;
import io.delayqueue.queue.engine.DelayQueueEngine;
import io.delayqueue.queue.engine.handover.DeadLetters;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;
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
 * {"ids":[...]}}, {@code POST /dead/{topic}/delete} deletes them alike. Errors are mapped by {@link
 * ApiExceptionHandler}.
 */
@Tag(name = "dead jobs", description = "list, requeue and delete the jobs that used up their attempts")
@RestController
public class DeadLetterController {
    static final int DEFAULT_LIMIT = 100;
    /** Largest body of a requeue or delete read. */
    static final int REQUEST_LIMIT = 1024 * 1024;

    private final DelayQueueEngine engine;

    public DeadLetterController(DelayQueueEngine engine) {
        this.engine = engine;
    }

    /** A requeue or delete by id. */
    public record RequeueRequest(List<String> ids) {}

    /**
     * The oldest {@code limit} (default 100, at most 1000) dead jobs of the topic, their total, and their last errors
     * by id.
     */
    @Operation(
            operationId = "listDeadLetters",
            summary = "List a topic's dead jobs",
            description = "The topic's dead jobs (they used up their attempts), oldest first, their total, and why"
                    + " each died: data.lastErrors maps a listed job's id to its last failed attempt's error as the"
                    + " journal has it (read at once for the page; empty without a journal or when it cannot be read).")
    @Answer(code = 200, when = "data is {topic, total, jobs, lastErrors}", example = "1 dead job, 1 listed")
    @Answer(
            code = 400,
            when = "topic malformed, or limit outside 1 to 1000",
            example = "limit must be between 1 and 1000")
    @Answer(code = 503, when = "Redis is unavailable", example = JobController.REDIS_503_EXAMPLE)
    @GetMapping("/dead/{topic}")
    public ResponseEntity<ApiResponse<DeadLetters.Page>> list(
            @Parameter(description = "the topic", example = EXAMPLE_TOPIC, schema = @Schema(pattern = TOPIC_PATTERN))
                    @PathVariable
                    String topic,
            @Parameter(
                            description = "the most dead jobs listed (default 100)",
                            example = "100",
                            schema = @Schema(type = "integer", format = "int32", minimum = "1", maximum = "1000"))
                    @RequestParam(required = false)
                    String limit) {
        DeadLetters.Page page = engine.deadLetters().list(topic, parseLimit(limit));
        return ApiResponse.ok(
                page,
                ApiResponse.count(page.total(), "dead job") + ", " + page.jobs().size() + " listed");
    }

    /**
     * Requeues dead jobs of the topic: each is {@code DELAY} again, due now, with its attempts counted from
     * zero. Without a body, every dead job of the topic; with {@code {"ids":[...]}}, those (ids that name no
     * dead job of the topic are reported in {@code notRequeued}).
     */
    @Operation(
            operationId = "requeueDeadLetters",
            summary = "Requeue a topic's dead jobs",
            description = "Requeues dead jobs of the topic: each is DELAY again, due now, with its attempts counted"
                    + " from zero. Without a body, every dead job of the topic; with {\"ids\": [...]}, those (ids"
                    + " that name no dead job of the topic are listed in data.notRequeued).")
    @Answer(code = 200, when = "data is {requeued, notRequeued}", example = "1 requeued")
    @Answer(
            code = 400,
            when = "topic malformed, ids missing from a body, empty, blank or more than 1000, an unknown field",
            example = "ids is required in a body (send no body to requeue every dead job of the topic)")
    @Answer(
            code = 503,
            when = "Redis is unavailable; the jobs requeued before it stay requeued, calling again goes on",
            example = JobController.REDIS_503_EXAMPLE)
    @PostMapping("/dead/{topic}/requeue")
    public ResponseEntity<ApiResponse<DeadLetters.Requeue>> requeue(
            @Parameter(description = "the topic", example = EXAMPLE_TOPIC, schema = @Schema(pattern = TOPIC_PATTERN))
                    @PathVariable
                    String topic,
            HttpServletRequest request) {
        List<String> ids = idsOrAll(request, "requeue");
        DeadLetters.Requeue result = ids == null
                ? engine.deadLetters().requeueAll(topic)
                : engine.deadLetters().requeue(topic, ids);
        return ApiResponse.ok(
                result,
                result.requeued() + " requeued"
                        + (result.notRequeued().isEmpty()
                                ? ""
                                : ", " + result.notRequeued().size() + " not dead jobs of " + topic));
    }

    /**
     * Deletes dead jobs of the topic: each is {@code DELETED} in the journal before the call is answered, so no
     * restore or requeue brings it back. Without a body, every dead job of the topic; with {@code {"ids":[...]}},
     * those (ids that name no dead job of the topic are reported in {@code notDeleted}).
     */
    @Operation(
            operationId = "deleteDeadLetters",
            summary = "Delete a topic's dead jobs",
            description = "Deletes dead jobs of the topic: each is DELETED in the journal before the call is answered"
                    + " (no restore or requeue brings it back), then purged from Redis after delay.retention and from"
                    + " the journal after delay.journal.retention. Without a body, every dead job of the topic; with"
                    + " {\"ids\": [...]}, those (ids that name no dead job of the topic are listed in"
                    + " data.notDeleted).")
    @Answer(code = 200, when = "data is {deleted, notDeleted}", example = "1 deleted")
    @Answer(
            code = 400,
            when = "topic malformed, ids missing from a body, empty, blank or more than 1000, an unknown field",
            example = "ids is required in a body (send no body to delete every dead job of the topic)")
    @Answer(
            code = 503,
            when = "Redis or the journal is unavailable; nothing of the batch under way was deleted (the batches"
                    + " before it were), calling again goes on",
            example = JobController.JOURNAL_503)
    @Answer(
            code = 504,
            when = "the journal did not answer in time: the batch under way may or may not be deleted, and is held"
                    + " (never requeued) until a retried call or the reconciler settles it",
            example = JobController.JOURNAL_504)
    @PostMapping("/dead/{topic}/delete")
    public ResponseEntity<ApiResponse<DeadLetters.Deletion>> delete(
            @Parameter(description = "the topic", example = EXAMPLE_TOPIC, schema = @Schema(pattern = TOPIC_PATTERN))
                    @PathVariable
                    String topic,
            HttpServletRequest request) {
        List<String> ids = idsOrAll(request, "delete");
        DeadLetters.Deletion result = ids == null
                ? engine.deadLetters().deleteAll(topic)
                : engine.deadLetters().delete(topic, ids);
        return ApiResponse.ok(
                result,
                result.deleted() + " deleted"
                        + (result.notDeleted().isEmpty()
                                ? ""
                                : ", " + result.notDeleted().size() + " not dead jobs of " + topic));
    }

    /** The ids of a body {@code {"ids":[...]}}, or {@code null} for no body (every dead job of the topic). */
    private static List<String> idsOrAll(HttpServletRequest request, String verb) {
        byte[] body = RequestBodies.read(request, REQUEST_LIMIT);
        if (new String(body, java.nio.charset.StandardCharsets.UTF_8).isBlank()) {
            return null;
        }
        RequeueRequest r = JsonCodec.readObject(body, RequeueRequest.class);
        if (r.ids() == null) {
            throw new DelayQueueException.InvalidField(
                    "ids", "is required in a body (send no body to " + verb + " every dead job of the topic)");
        }
        return r.ids();
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
