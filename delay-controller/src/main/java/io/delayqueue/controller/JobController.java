package io.delayqueue.controller;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.JobIds;
import io.delayqueue.common.JsonCodec;
import io.delayqueue.queue.engine.DelayQueueEngine;
import io.delayqueue.queue.engine.EngineStats;
import io.delayqueue.queue.engine.FinishOutcome;
import io.delayqueue.queue.engine.JobDetails;
import io.delayqueue.queue.engine.PullSettings;
import io.delayqueue.queue.engine.PushResult;
import io.delayqueue.queue.engine.RestoreReport;
import io.delayqueue.queue.store.Attempt;
import jakarta.servlet.http.HttpServletRequest;
import java.util.ArrayList;
import java.util.EnumMap;
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
    /** Largest {@code POST /jobs/finish} request read: room for {@link PullSettings#MAX_COUNT} jobs. */
    static final int FINISH_REQUEST_LIMIT = 256 * 1024;

    private final DelayQueueEngine engine;

    public JobController(DelayQueueEngine engine) {
        this.engine = engine;
    }

    /** Pushes one job; {@code data} is its id. */
    @PostMapping("/push")
    public ResponseEntity<ApiResponse<String>> push(HttpServletRequest request) {
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
    public ResponseEntity<ApiResponse<List<String>>> pushBatch(HttpServletRequest request) {
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
        return deleteJob(requireJobId("jobId", jobId));
    }

    @DeleteMapping("/jobs/{id}")
    public ResponseEntity<ApiResponse<String>> delete(@PathVariable String id) {
        return deleteJob(requireJobId("id", id));
    }

    private ResponseEntity<ApiResponse<String>> deleteJob(String id) {
        engine.delete(id);
        return ApiResponse.ok(id, "deleted");
    }

    /**
     * Reserves ready jobs of a pull topic for their TTR, long-polling up to {@code timeout} ms when none is ready.
     * Without {@code count}, the next job ({@code data} null when none came); with it, up to {@code count} jobs
     * ({@code data} a list, empty when none came).
     */
    @GetMapping("/get/{topic}")
    public CompletableFuture<ResponseEntity<ApiResponse<Object>>> reserve(
            @PathVariable String topic,
            @RequestParam(required = false) String timeout,
            @RequestParam(required = false) String count) {
        long timeoutMs = parseTimeout(timeout);
        if (count == null || count.isEmpty()) {
            return engine.reserve(topic, timeoutMs)
                    .thenApply(job -> ApiResponse.ok(job.orElse(null), job.isPresent() ? "reserved" : "no job ready"));
        }
        return engine.reserve(topic, parseCount(count), timeoutMs)
                .thenApply(jobs -> ApiResponse.ok(jobs, jobs.size() + " reserved"));
    }

    /**
     * Acknowledges a reserved job. {@code attempts}, the job's {@code attempts} as the consumer reserved it, makes
     * the finish count only for that reservation: once it expired and the job was handed over again, the answer
     * is 409 and nothing changes.
     */
    @GetMapping("/finish")
    public ResponseEntity<ApiResponse<String>> finishByQuery(
            @RequestParam(required = false) String jobId, @RequestParam(required = false) String attempts) {
        return finishJob(requireJobId("jobId", jobId), attempts);
    }

    @PostMapping("/jobs/{id}/finish")
    public ResponseEntity<ApiResponse<String>> finish(
            @PathVariable String id, @RequestParam(required = false) String attempts) {
        return finishJob(requireJobId("id", id), attempts);
    }

    /** One job of a {@code POST /jobs/finish}: its id and, optionally, its attempts as the consumer reserved it. */
    public record FinishRequest(String id, Integer attempts) {}

    /**
     * Acknowledges many reserved jobs, of any shards, each as {@code POST /jobs/{id}/finish} does; {@code data} is
     * one outcome per job, in order. A stale attempt is refused for its job alone; {@code UNKNOWN} (Redis failed on
     * that job's shard) means the finish may or may not have applied, and sending it again is safe.
     */
    @PostMapping("/jobs/finish")
    public ResponseEntity<ApiResponse<List<FinishOutcome>>> finishAll(HttpServletRequest request) {
        byte[] body = RequestBodies.read(request, FINISH_REQUEST_LIMIT);
        if (body.length == 0) {
            throw new DelayQueueException.InvalidField(
                    "body", "of the request is empty; send [{\"id\": ..., \"attempts\": ...}]");
        }
        List<FinishRequest> requests = JsonCodec.readList(body, FinishRequest.class, "a JSON array of {id, attempts}");
        if (requests.isEmpty() || requests.size() > PullSettings.MAX_COUNT) {
            throw new DelayQueueException.InvalidField(
                    "jobs", "must hold between 1 and " + PullSettings.MAX_COUNT + " jobs, not " + requests.size());
        }
        List<Attempt> attempts = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            FinishRequest r = requests.get(i);
            if (r == null) {
                throw new DelayQueueException.InvalidField("[" + i + "]", "must be {\"id\": ..., \"attempts\": ...}");
            }
            String id = requireJobId("[" + i + "].id", r.id());
            if (r.attempts() != null && r.attempts() < 0) {
                throw new DelayQueueException.InvalidField("[" + i + "].attempts", "must be at least 0");
            }
            attempts.add(r.attempts() == null ? Attempt.any(id) : new Attempt(id, r.attempts()));
        }
        List<FinishOutcome> outcomes = engine.finishAll(attempts);
        Map<FinishOutcome.Result, Long> counts = new EnumMap<>(FinishOutcome.Result.class);
        outcomes.forEach(o -> counts.merge(o.outcome(), 1L, Long::sum));
        StringBuilder message = new StringBuilder();
        counts.forEach((result, n) -> message.append(message.isEmpty() ? "" : ", ")
                .append(n)
                .append(' ')
                .append(result));
        if (counts.containsKey(FinishOutcome.Result.UNKNOWN)) {
            message.append(" (Redis failed on their shard: finish those again)");
        }
        return ApiResponse.ok(outcomes, message.toString());
    }

    private ResponseEntity<ApiResponse<String>> finishJob(String id, String attempts) {
        engine.finish(id, parseAttempts(attempts));
        return ApiResponse.ok(id, "finished");
    }

    /**
     * The job with its current status, attempts and due time ({@code executeAt}), and its journaled
     * transitions, oldest first.
     */
    @GetMapping("/jobs/{id}")
    public ResponseEntity<ApiResponse<Map<String, Object>>> get(@PathVariable String id) {
        JobDetails details = engine.details(requireJobId("id", id));
        return ApiResponse.ok(
                Map.of(
                        "job",
                        details.job(),
                        "status",
                        details.job().status(),
                        "tier",
                        details.tier(),
                        "history",
                        details.history()),
                null);
    }

    /** Re-enqueues every non-final journaled job missing from Redis; {@code expire=false} skips overdue ones. */
    @GetMapping("/reStore")
    public ResponseEntity<ApiResponse<RestoreReport>> restore(@RequestParam(required = false) String expire) {
        boolean includeExpired = parseBoolean("expire", expire, true);
        RestoreReport report = engine.restore(includeExpired);
        return ApiResponse.ok(
                report, report.restored() + " restored, " + report.alreadyPresent() + " already in Redis");
    }

    /** Restores one job; {@code JobId} is mykit-delay's spelling of {@code jobId}, taken as it documents it. */
    @GetMapping("/reStoreJob")
    public ResponseEntity<ApiResponse<RestoreReport>> restoreJob(
            @RequestParam(required = false) String jobId,
            @RequestParam(name = "JobId", required = false) String mykitJobId) {
        if (jobId != null && mykitJobId != null) {
            throw new DelayQueueException.InvalidField("jobId", "and JobId name the same thing; give one");
        }
        RestoreReport report = engine.restoreJob(
                jobId == null && mykitJobId != null ? requireJobId("JobId", mykitJobId) : requireJobId("jobId", jobId));
        String message = report.restored() == 1
                ? "restored"
                : report.inJournalTier() == 1
                        ? "in the journal tier (due beyond the horizon); it is loaded into Redis ahead of its due time"
                        : "already in Redis";
        return ApiResponse.ok(report, message);
    }

    /** Deletes every job not handed over yet; needs {@code confirm=true}. */
    @GetMapping("/clearAll")
    public ResponseEntity<ApiResponse<Long>> clearAll(@RequestParam(required = false) String confirm) {
        if (!parseBoolean("confirm", confirm, false)) {
            throw new DelayQueueException.InvalidField(
                    "confirm", "must be true to delete every queued job: call GET /clearAll?confirm=true");
        }
        long deleted = engine.clearAll();
        return ApiResponse.ok(deleted, deleted + " jobs deleted");
    }

    @GetMapping("/stats")
    public ResponseEntity<ApiResponse<EngineStats>> stats() {
        return ApiResponse.ok(engine.stats(), null);
    }

    /** The raw request body, declared application/json ({@link StrictInputInterceptor}). */
    private static byte[] readBody(HttpServletRequest request, int limit) {
        byte[] body = RequestBodies.read(request, limit);
        if (body.length == 0) {
            throw new DelayQueueException.InvalidField("body", "of the request is empty; send a JSON job");
        }
        return body;
    }

    /**
     * {@code id} when it can name a job ({@link JobIds#isClientId}; generated ids match it too), else a 400
     * naming {@code parameter}: an id no job can have is refused here rather than looked up (a non-ASCII one
     * would not even compare with the journal's ASCII id column).
     */
    private static String requireJobId(String parameter, String id) {
        if (id == null || id.isEmpty()) {
            throw new DelayQueueException.InvalidField(parameter, "is required");
        }
        if (!JobIds.isClientId(id)) {
            throw new DelayQueueException.InvalidField(parameter, "must match [A-Za-z0-9._:-]{1,128}");
        }
        return id;
    }

    /** A job body may need six bytes of JSON per byte ({@code \\u0000}); leave room for the other fields. */
    private int singleLimit() {
        return (int) Math.min(Integer.MAX_VALUE - 1L, engine.config().limits().maxBodyBytes() * 6L + 16 * 1024);
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

    private static Integer parseAttempts(String attempts) {
        if (attempts == null || attempts.isEmpty()) {
            return null;
        }
        try {
            return Integer.parseInt(attempts);
        } catch (NumberFormatException e) {
            throw new DelayQueueException.InvalidField("attempts", "must be the job's attempts as it was reserved");
        }
    }

    private static int parseCount(String count) {
        try {
            return Integer.parseInt(count);
        } catch (NumberFormatException e) {
            throw new DelayQueueException.InvalidField(
                    "count", "must be an integer between 1 and " + PullSettings.MAX_COUNT);
        }
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
