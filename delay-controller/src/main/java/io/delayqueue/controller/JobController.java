package io.delayqueue.controller;

import static io.delayqueue.controller.QueryParameters.EXAMPLE_ID;
import static io.delayqueue.controller.QueryParameters.EXAMPLE_TOPIC;
import static io.delayqueue.controller.QueryParameters.JOB_ID_PATTERN;
import static io.delayqueue.controller.QueryParameters.TOPIC_PATTERN;
import static io.delayqueue.controller.QueryParameters.parseAttempts;
import static io.delayqueue.controller.QueryParameters.parseCount;
import static io.delayqueue.controller.QueryParameters.parseTimeout;
import static io.delayqueue.controller.QueryParameters.requireJobId;
import static io.delayqueue.controller.QueryParameters.requireOneJobId;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.common.JsonCodec;
import io.delayqueue.queue.engine.DelayQueueEngine;
import io.delayqueue.queue.engine.EngineConfig;
import io.delayqueue.queue.engine.JobDetails;
import io.delayqueue.queue.engine.handover.FinishOutcome;
import io.delayqueue.queue.engine.handover.PullSettings;
import io.delayqueue.queue.engine.handover.RunNow;
import io.delayqueue.queue.engine.push.PushResult;
import io.delayqueue.queue.journal.JournalEntry;
import io.delayqueue.queue.store.Attempt;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;
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

/**
 * The job API of DESIGN.md: push, pull, finish, delete, look-up. Errors are mapped by {@link ApiExceptionHandler};
 * what each handler can answer is listed beside it ({@link Answer}) for the API description.
 */
@Tag(name = "jobs", description = "push, pull, finish, delete and look up jobs")
@RestController
public class JobController {
    /** Largest {@code POST /push/batch} request read. */
    static final int BATCH_REQUEST_LIMIT = 32 * 1024 * 1024;
    /** Largest {@code POST /jobs/finish} request read: room for {@link PullSettings#MAX_COUNT} jobs. */
    static final int FINISH_REQUEST_LIMIT = 256 * 1024;

    private static final String PUSH_200 = "committed in the journal and in Redis (or, due beyond delay.tier.horizon,"
            + " in the journal tier); data is the job's id";
    private static final String PUSH_202 = "committed in the journal; Redis could not take it now, the reconciler"
            + " schedules it once Redis is back; data is the job's id. Never push it again without that id";
    private static final String PUSH_503 = "nothing written (journal refused, too far behind, or no commit started"
            + " within delay.journal.commit-timeout); data is the job's id: retrying with it is safe";
    private static final String PUSH_504 = "a commit was under way at the timeout and may still land; data is the"
            + " job's id: retry with it (200, one job either way)";
    private static final String DELETE_ANSWERS = "Cancels a job that is still DELAY or READY, or deletes a dead"
            + " letter (DEAD). 200: DELETED is committed in the journal and the job is never delivered, restored or"
            + " requeued; deleting a deleted job again is 200.";
    private static final String DELETE_409 = "the job is being delivered (RESERVED) or is FINISHED: not deleted";
    private static final String DELETE_503 = "nothing changed (the journal refused, or Redis is unavailable)";
    private static final String DELETE_504 = "the journal's answer is unknown: the job is held (not delivered) until"
            + " a retried delete or the reconciler settles it";
    private static final String FINISH_409 = "the job is not RESERVED, or the reservation of the attempts named"
            + " expired and the job was handed over again (counted as staleOutcomes); nothing changed";
    private static final String PUSH_409 = "the id already names another job (the message names the first field"
            + " that differs and the id; see the idempotency rules in http-api.md): that job is kept as it is";
    private static final String REDIS_503 = "Redis is unavailable (or the service is shutting down); nothing changed";
    /** Examples of the messages of a status, for the API description. */
    static final String REDIS_503_EXAMPLE = "Redis is unavailable: Connection refused";

    static final String JOURNAL_503 = "not written: the journal could not commit: Connection refused";
    static final String JOURNAL_504 = "the journal's commit broke off and may or may not have landed: Read timed out";
    private static final String FINISH_409_EXAMPLE = "job order-42-close is READY: only a RESERVED job can be finished";

    private final DelayQueueEngine engine;

    public JobController(DelayQueueEngine engine) {
        this.engine = engine;
    }

    @Operation(
            operationId = "pushJob",
            summary = "Push one job",
            description = "Pushes one job (the JSON body), due after its delay or at its executeAt. The job's id is"
                    + " fixed before anything is written and is in data on every answer but a 400 (which names the"
                    + " field and the id the push gave, if any): a retry with it is always safe, and pushing an id that exists changes nothing: the same job"
                    + " again is 200, another job under it 409.")
    @Answer(
            code = 200,
            when = PUSH_200 + " (message: created, or a job with this id already exists)",
            example = "created")
    @Answer(code = 202, when = PUSH_202, example = JOURNALED)
    @Answer(
            code = 400,
            when = "nothing written: a field is invalid or over its limit (the message names it); data is {field, id}:"
                    + " the field, and the job's id when the push gave one (no id is fixed for a refused push)",
            example = "delay must not be negative")
    @Answer(
            code = 409,
            when = PUSH_409,
            example = "body: id 'order-41-close' already names another job (its body differs); that job was kept as"
                    + " it is: push another job under a new id")
    @Answer(code = 503, when = PUSH_503, example = JOURNAL_503)
    @Answer(code = 504, when = PUSH_504, example = JOURNAL_504)
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

    @Operation(
            operationId = "pushJobs",
            summary = "Push up to 1000 jobs",
            description = "Pushes a JSON array of jobs, written whole or not at all: one bad job rejects the batch"
                    + " (the message names it as [i].field, and data as {field, index, id}). data is the jobs' ids, in"
                    + " order, on every other answer.")
    @Answer(
            code = 200,
            when = "every job committed in the journal and in Redis; data is the ids in order",
            example = "2 created, 0 already existed")
    @Answer(
            code = 202,
            when = "every job committed in the journal, some not in Redis yet (scheduled once Redis is"
                    + " back); data is the ids in order",
            example = "2 created, 0 already existed; 2 " + JOURNALED)
    @Answer(
            code = 400,
            when = "nothing written: a job is invalid (the message names [i].field; data is {field, index, id}: the"
                    + " field, the job's index from 0 and the id the batch gave it, if any) or the batch holds no job"
                    + " or more than delay.limits.max-batch-size (data.field is jobs)",
            example = "[1].delay must not be negative")
    @Answer(
            code = 409,
            when = "a job's id already names another job (the message names each as [i].field and the id); those"
                    + " jobs are kept as they are, the batch's other jobs are pushed (the message counts them); data"
                    + " is the ids in order",
            example = "[0].body: id 'order-41-close' already names another job (its body differs). Those jobs were"
                    + " kept as they are; the batch's other jobs were pushed (1 created, 0 already existed)")
    @Answer(code = 503, when = "nothing written; data is the ids: retrying with them is safe", example = JOURNAL_503)
    @Answer(
            code = 504,
            when = "a commit was under way at the timeout and may still land; retry with the ids in data",
            example = JOURNAL_504)
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

    @Operation(
            operationId = "deleteJobByQuery",
            summary = "Delete a job (query form)",
            description = DELETE_ANSWERS + " The job is named by jobId, or by id as mykit-delay's client documents"
                    + " it (GET /delete?id=); give one of them.")
    @Answer(code = 200, when = "deleted; data is the job's id", example = "deleted")
    @Answer(
            code = 400,
            when = "jobId and id both missing, both given, or not a job id",
            example = "jobId and id name the same thing; give one")
    @Answer(code = 404, when = "no such job")
    @Answer(code = 409, when = DELETE_409, example = "job order-42-close is RESERVED: it is being delivered")
    @Answer(code = 503, when = DELETE_503, example = JOURNAL_503)
    @Answer(code = 504, when = DELETE_504, example = JOURNAL_504)
    @GetMapping("/delete")
    public ResponseEntity<ApiResponse<String>> deleteByQuery(
            @Parameter(description = "the job's id", example = EXAMPLE_ID, schema = @Schema(pattern = JOB_ID_PATTERN))
                    @RequestParam(required = false)
                    String jobId,
            @Parameter(
                            description = "the job's id, as mykit-delay's client names it (give jobId or id)",
                            example = EXAMPLE_ID,
                            schema = @Schema(pattern = JOB_ID_PATTERN))
                    @RequestParam(name = "id", required = false)
                    String mykitId) {
        return deleteJob(requireOneJobId("jobId", jobId, "id", mykitId));
    }

    @Operation(operationId = "deleteJob", summary = "Delete a job", description = DELETE_ANSWERS)
    @Answer(code = 200, when = "deleted; data is the job's id", example = "deleted")
    @Answer(code = 404, when = "no such job")
    @Answer(code = 409, when = DELETE_409, example = "job order-42-close is RESERVED: it is being delivered")
    @Answer(code = 503, when = DELETE_503, example = JOURNAL_503)
    @Answer(code = 504, when = DELETE_504, example = JOURNAL_504)
    @DeleteMapping("/jobs/{id}")
    public ResponseEntity<ApiResponse<String>> delete(
            @Parameter(description = "the job's id", example = EXAMPLE_ID, schema = @Schema(pattern = JOB_ID_PATTERN))
                    @PathVariable
                    String id) {
        return deleteJob(requireJobId("id", id));
    }

    @Operation(
            summary = "Run a job now",
            description = "Makes a DELAY job due at once (the console's \"run now\"): its status and attempts stay,"
                    + " its due time (executeAt) becomes now, journaled as DUE_NOW, and it is handed over within"
                    + " moments. A far job of the journal tier has its due time committed in the journal before the"
                    + " answer, then is loaded into Redis. No body. A dead job is requeued instead (POST"
                    + " /dead/{topic}/requeue).")
    @Answer(
            code = 200,
            when = "due now; data is the job's id, the message says how: due now, already due, loaded from the"
                    + " journal, or committed (Redis takes it at the tier loader's next pass)")
    @Answer(code = 400, when = "id is not a job id")
    @Answer(code = 404, when = "no such job")
    @Answer(
            code = 409,
            when = "the job is not DELAY (READY or RESERVED: being handed over; DEAD; final); the"
                    + " message names its status")
    @Answer(
            code = 503,
            when = "Redis or the journal is unavailable; nothing was changed, or the journal's due time"
                    + " was committed and the reconciler loads the job")
    @PostMapping("/jobs/{id}/run-now")
    public ResponseEntity<ApiResponse<String>> runNow(
            @Parameter(description = "the job's id", example = EXAMPLE_ID, schema = @Schema(pattern = JOB_ID_PATTERN))
                    @PathVariable
                    String id) {
        RunNow.Result result = engine.runNow(requireJobId("id", id));
        String how =
                switch (result) {
                    case DUE_NOW -> "due now";
                    case ALREADY_DUE -> "already due";
                    case LOADED -> "due now, loaded from the journal tier";
                    case COMMITTED -> "due now in the journal; Redis takes it at the tier loader's next pass";
                };
        return ApiResponse.ok(id, how);
    }

    private ResponseEntity<ApiResponse<String>> deleteJob(String id) {
        engine.delete(id);
        return ApiResponse.ok(id, "deleted");
    }

    @Operation(
            operationId = "reserveJobs",
            summary = "Reserve ready jobs of a pull topic",
            description = "Reserves ready jobs of a pull topic for their ttr, long-polling up to timeout ms when"
                    + " none is ready. Without count, the next job (data null when none came); with count, up to"
                    + " count jobs (data a list, empty when none came). A reserved job not finished within its"
                    + " ttr comes back with its attempts counted.")
    @Answer(
            code = 200,
            when = "data is the job reserved or null (without count), or the jobs reserved (with count)",
            example = "reserved")
    @Answer(
            code = 400,
            when = "topic is not a pull topic or malformed, count outside 1 to 1000, or timeout"
                    + " outside 0 to delay.pull.max-timeout",
            example = "count must be an integer between 1 and 1000")
    @Answer(
            code = 503,
            when = "Redis failed on every shard (or the service is shutting down); nothing reserved",
            example = REDIS_503_EXAMPLE)
    @GetMapping("/get/{topic}")
    public CompletableFuture<ResponseEntity<ApiResponse<Object>>> reserve(
            @Parameter(
                            description = "the pull topic (`delay.dispatch.topics.<topic>=pull`)",
                            example = EXAMPLE_TOPIC,
                            schema = @Schema(pattern = TOPIC_PATTERN))
                    @PathVariable
                    String topic,
            @Parameter(
                            description = "milliseconds to wait for a ready job, at most delay.pull.max-timeout;"
                                    + " 0 (default) answers at once",
                            example = "1000",
                            schema = @Schema(type = "integer", format = "int64", minimum = "0"))
                    @RequestParam(required = false)
                    String timeout,
            @Parameter(
                            description = "the most jobs to reserve: data is then a list (possibly empty); without"
                                    + " count, data is one job or null",
                            example = "10",
                            schema = @Schema(type = "integer", format = "int32", minimum = "1", maximum = "1000"))
                    @RequestParam(required = false)
                    String count) {
        long timeoutMs = parseTimeout(timeout);
        if (count == null || count.isEmpty()) {
            return engine.reserve(topic, timeoutMs)
                    .thenApply(job -> ApiResponse.ok(job.orElse(null), job.isPresent() ? "reserved" : "no job ready"));
        }
        return engine.reserve(topic, parseCount(count), timeoutMs)
                .thenApply(jobs -> ApiResponse.ok(jobs, jobs.size() + " reserved"));
    }

    @Operation(
            operationId = "finishJobByQuery",
            summary = "Finish a reserved job (query form)",
            description = "Acknowledges a reserved job. With attempts (the job's attempts as the consumer"
                    + " reserved it) the finish counts only for that reservation. Finishing a finished job again"
                    + " is 200.")
    @Answer(code = 200, when = "finished; data is the job's id", example = "finished")
    @Answer(code = 404, when = "no such job")
    @Answer(code = 409, when = FINISH_409, example = FINISH_409_EXAMPLE)
    @Answer(code = 503, when = REDIS_503, example = REDIS_503_EXAMPLE)
    @GetMapping("/finish")
    public ResponseEntity<ApiResponse<String>> finishByQuery(
            @Parameter(
                            description = "the job's id",
                            required = true,
                            example = EXAMPLE_ID,
                            schema = @Schema(pattern = JOB_ID_PATTERN))
                    @RequestParam(required = false)
                    String jobId,
            @Parameter(description = ATTEMPTS, example = "0", schema = @Schema(type = "integer", minimum = "0"))
                    @RequestParam(required = false)
                    String attempts) {
        return finishJob(requireJobId("jobId", jobId), attempts);
    }

    private static final String ATTEMPTS = "the job's attempts as the consumer reserved it: the finish counts only"
            + " for that reservation (409 once it expired and the job was handed over again); without it, for"
            + " whichever reservation the job has now";

    @Operation(
            operationId = "finishJob",
            summary = "Finish a reserved job",
            description = "Acknowledges a reserved job, as GET /finish does. Finishing a finished job again is 200.")
    @Answer(code = 200, when = "finished; data is the job's id", example = "finished")
    @Answer(code = 404, when = "no such job")
    @Answer(code = 409, when = FINISH_409, example = FINISH_409_EXAMPLE)
    @Answer(code = 503, when = REDIS_503, example = REDIS_503_EXAMPLE)
    @PostMapping("/jobs/{id}/finish")
    public ResponseEntity<ApiResponse<String>> finish(
            @Parameter(description = "the job's id", example = EXAMPLE_ID, schema = @Schema(pattern = JOB_ID_PATTERN))
                    @PathVariable
                    String id,
            @Parameter(description = ATTEMPTS, example = "0", schema = @Schema(type = "integer", minimum = "0"))
                    @RequestParam(required = false)
                    String attempts) {
        return finishJob(requireJobId("id", id), attempts);
    }

    /** One job of a {@code POST /jobs/finish}: its id and, optionally, its attempts as the consumer reserved it. */
    public record FinishRequest(String id, Integer attempts) {}

    @Operation(
            operationId = "finishJobs",
            summary = "Finish up to 1000 reserved jobs",
            description = "Acknowledges reserved jobs of any shards, each as POST /jobs/{id}/finish does; data is"
                    + " one outcome per job, in order: FINISHED, STALE (that reservation is over; ignored),"
                    + " NOT_FOUND, NOT_RESERVED, UNKNOWN (Redis failed on its shard; finishing it again is safe)."
                    + " One job's outcome never fails another's.")
    @Answer(code = 200, when = "data is an outcome per job, in the order sent", example = "1 FINISHED")
    @Answer(
            code = 400,
            when = "nothing finished: no job or more than 1000 (jobs), a missing or malformed id"
                    + " ([i].id), a negative attempts ([i].attempts), an unknown field, a body that is not a JSON"
                    + " array; data is {field, index, id}: the field, the job's index and its id",
            example = "[0].attempts must be at least 0")
    @Answer(
            code = 503,
            when = "Redis failed for every shard of the request; sending it again is safe",
            example = REDIS_503_EXAMPLE)
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
                throw new DelayQueueException.InvalidField("[" + i + "].attempts", "must be at least 0").naming(id);
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

    @Operation(
            operationId = "getJob",
            summary = "Look a job up",
            description = "The job with its status, attempts, current due time (executeAt), the tier it was found"
                    + " in (redis, or journal for a far job not loaded yet) and its journaled transitions, oldest"
                    + " first. Needs the token when delay.security.token is set: it returns the job's body and url,"
                    + " and ids can be enumerated.")
    @Answer(
            code = 200,
            when = "data is {job, status, tier, lastError, history}: lastError is why its latest attempt failed"
                    + " (null when none did)",
            example = "found")
    @Answer(code = 404, when = "no such job (or it was final longer ago than delay.retention)")
    @Answer(code = 503, when = "Redis or the journal is unavailable", example = REDIS_503_EXAMPLE)
    @GetMapping("/jobs/{id}")
    public ResponseEntity<ApiResponse<JobLookup>> get(
            @Parameter(description = "the job's id", example = EXAMPLE_ID, schema = @Schema(pattern = JOB_ID_PATTERN))
                    @PathVariable
                    String id) {
        JobDetails details = engine.details(requireJobId("id", id));
        return ApiResponse.ok(
                new JobLookup(
                        details.job(), details.job().status(), details.tier(), details.lastError(), details.history()),
                null);
    }

    /**
     * The answer of {@code GET /jobs/{id}}: the job, its status (the job's own, repeated for a reader that wants it at
     * the top), the tier it was found in ({@link JobDetails#REDIS} or {@link JobDetails#JOURNAL}), why its latest
     * attempt failed (null when none did) and its journaled transitions, oldest first.
     */
    public record JobLookup(Job job, JobStatus status, String tier, String lastError, List<JournalEntry> history) {}

    /** The raw request body, declared application/json ({@link StrictInputInterceptor}). */
    private static byte[] readBody(HttpServletRequest request, int limit) {
        byte[] body = RequestBodies.read(request, limit);
        if (body.length == 0) {
            throw new DelayQueueException.InvalidField("body", "of the request is empty; send a JSON job");
        }
        return body;
    }

    private int singleLimit() {
        return singleLimit(engine.config());
    }

    /** A job body may need six bytes of JSON per byte ({@code \\u0000}); leave room for the other fields. */
    static int singleLimit(EngineConfig config) {
        return (int) Math.min(Integer.MAX_VALUE - 1L, config.limits().maxBodyBytes() * 6L + 16 * 1024);
    }
}
