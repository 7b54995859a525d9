package io.delayqueue.controller;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.Job;
import io.delayqueue.common.JsonCodec;
import io.delayqueue.queue.engine.DelayQueueEngine;
import io.delayqueue.queue.engine.EngineStats;
import io.delayqueue.queue.engine.JobDetails;
import io.delayqueue.queue.engine.PushResult;
import io.delayqueue.queue.engine.RestoreReport;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** The job API of DESIGN.md. Errors are mapped by {@link ApiExceptionHandler}. */
@RestController
public class JobController {
    /** Largest {@code POST /push/batch} request read. */
    static final int BATCH_REQUEST_LIMIT = 32 * 1024 * 1024;

    private final DelayQueueEngine engine;

    public JobController(DelayQueueEngine engine) {
        this.engine = engine;
    }

    /** Pushes one job; {@code data} is its id. */
    @PostMapping("/push")
    public ResponseEntity<ApiResponse<String>> push(HttpServletRequest request) throws IOException {
        PushResult result = engine.push(JsonCodec.readPushRequest(readBody(request, singleLimit())));
        if (!result.scheduled()) {
            return ApiResponse.accepted(result.id(), JOURNALED);
        }
        return ApiResponse.ok(result.id(), result.created() ? "created" : "a job with this id already exists");
    }

    /** The message of a 202: the push is durable, and Redis will have it later. */
    static final String JOURNALED = "journaled; Redis could not take it now, it is scheduled once Redis is back";

    /** Pushes a JSON array of up to 1000 jobs; {@code data} is their ids in order. */
    @PostMapping("/push/batch")
    public ResponseEntity<ApiResponse<List<String>>> pushBatch(HttpServletRequest request) throws IOException {
        List<PushResult> results = engine.pushBatch(JsonCodec.readPushRequests(readBody(request, BATCH_REQUEST_LIMIT)));
        long created = results.stream().filter(PushResult::created).count();
        long journaledOnly = results.stream().filter(r -> !r.scheduled()).count();
        List<String> ids = results.stream().map(PushResult::id).toList();
        String message = created + " created, " + (results.size() - created) + " already existed";
        if (journaledOnly > 0) {
            return ApiResponse.accepted(ids, message + "; " + journaledOnly + " " + JOURNALED);
        }
        return ApiResponse.ok(ids, message);
    }

    @GetMapping("/delete")
    public ResponseEntity<ApiResponse<String>> deleteByQuery(@RequestParam(required = false) String jobId) {
        engine.delete(jobId);
        return ApiResponse.ok(jobId, "deleted");
    }

    @DeleteMapping("/jobs/{id}")
    public ResponseEntity<ApiResponse<String>> delete(@PathVariable String id) {
        return deleteByQuery(id);
    }

    /**
     * Reserves the next ready job of a pull topic for its TTR, long-polling up to {@code timeout} ms;
     * {@code data} is null when none came.
     */
    @GetMapping("/get/{topic}")
    public CompletableFuture<ResponseEntity<ApiResponse<Job>>> reserve(
            @PathVariable String topic, @RequestParam(required = false) String timeout) {
        long timeoutMs = parseTimeout(timeout);
        return engine.reserve(topic, timeoutMs)
                .thenApply(job -> ApiResponse.ok(job.orElse(null), job.isPresent() ? "reserved" : "no job ready"));
    }

    @GetMapping("/finish")
    public ResponseEntity<ApiResponse<String>> finishByQuery(@RequestParam(required = false) String jobId) {
        engine.finish(jobId);
        return ApiResponse.ok(jobId, "finished");
    }

    @PostMapping("/jobs/{id}/finish")
    public ResponseEntity<ApiResponse<String>> finish(@PathVariable String id) {
        return finishByQuery(id);
    }

    /**
     * The job with its current status, attempts and due time ({@code executeAt}), and its journaled
     * transitions, oldest first.
     */
    @GetMapping("/jobs/{id}")
    public ResponseEntity<ApiResponse<Map<String, Object>>> get(@PathVariable String id) {
        JobDetails details = engine.details(id);
        return ApiResponse.ok(
                Map.of("job", details.job(), "status", details.job().status(), "history", details.history()), null);
    }

    /** Re-enqueues every non-final journaled job missing from Redis; {@code expire=false} skips overdue ones. */
    @GetMapping("/reStore")
    public ResponseEntity<ApiResponse<RestoreReport>> restore(@RequestParam(required = false) String expire) {
        boolean includeExpired = parseBoolean("expire", expire, true);
        RestoreReport report = engine.restore(includeExpired);
        return ApiResponse.ok(
                report, report.restored() + " restored, " + report.alreadyPresent() + " already in Redis");
    }

    @GetMapping("/reStoreJob")
    public ResponseEntity<ApiResponse<RestoreReport>> restoreJob(@RequestParam(required = false) String jobId) {
        RestoreReport report = engine.restoreJob(jobId);
        return ApiResponse.ok(report, report.restored() == 1 ? "restored" : "already in Redis");
    }

    /** Deletes every job not handed over yet; needs {@code confirm=true}. */
    @GetMapping("/clearAll")
    public ResponseEntity<ApiResponse<Long>> clearAll(@RequestParam(required = false) String confirm) {
        if (!parseBoolean("confirm", confirm, false)) {
            throw new DelayQueueException.InvalidField("confirm", "must be true to delete every queued job");
        }
        long deleted = engine.clearAll();
        return ApiResponse.ok(deleted, deleted + " jobs deleted");
    }

    @GetMapping("/stats")
    public ResponseEntity<ApiResponse<EngineStats>> stats() {
        return ApiResponse.ok(engine.stats(), null);
    }

    /**
     * The raw request body, whatever the content type: a client that forgot {@code -H content-type:
     * application/json} still gets its JSON read (and a form-encoded body is reported as not JSON).
     */
    private static byte[] readBody(HttpServletRequest request, int limit) throws IOException {
        byte[] body = request.getInputStream().readNBytes(limit + 1);
        if (body.length > limit) {
            throw new DelayQueueException(413, "body of the request is over " + limit + " bytes");
        }
        if (body.length == 0) {
            throw new DelayQueueException.InvalidField("body", "of the request is empty; send a JSON job");
        }
        return body;
    }

    /** A job body may need six bytes of JSON per byte ({@code \\u0000}); leave room for the other fields. */
    private int singleLimit() {
        return (int) Math.min(Integer.MAX_VALUE - 1L, engine.config().maxBodyBytes() * 6L + 16 * 1024);
    }

    private static boolean parseBoolean(String name, String value, boolean absent) {
        if (value == null || value.isEmpty()) {
            return absent;
        }
        if (value.equalsIgnoreCase("true") || value.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(value);
        }
        throw new DelayQueueException.InvalidField(name, "must be true or false");
    }

    private static long parseTimeout(String timeout) {
        if (timeout == null || timeout.isEmpty()) {
            return 0;
        }
        try {
            return Long.parseLong(timeout);
        } catch (NumberFormatException e) {
            throw new DelayQueueException.InvalidField("timeout", "must be an integer number of milliseconds");
        }
    }
}
