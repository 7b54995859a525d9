package io.delayqueue.controller;

import static io.delayqueue.controller.QueryParameters.EXAMPLE_ID;
import static io.delayqueue.controller.QueryParameters.JOB_ID_PATTERN;
import static io.delayqueue.controller.QueryParameters.parseBoolean;
import static io.delayqueue.controller.QueryParameters.requireJobId;
import static io.delayqueue.controller.QueryParameters.requireOneJobId;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.queue.engine.DelayQueueEngine;
import io.delayqueue.queue.engine.EngineStats;
import io.delayqueue.queue.engine.restore.RestoreReport;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The administrative calls: {@code GET /stats}, and in the forms mykit-delay documents them, restore from the
 * journal ({@code GET /reStore}, one job by {@code GET /reStoreJob?jobId=} or {@code GET /reStore/{id}}) and
 * {@code GET /clearAll}.
 * Errors are mapped by {@link ApiExceptionHandler}.
 */
@Tag(name = "admin", description = "statistics, restore from the journal, delete every queued job")
@RestController
public class AdminController {
    private static final String RESTORE_ONE = "Puts one journaled job back into Redis if Redis lacks it (a DEAD job"
            + " too; a FINISHED or DELETED one is not restored). A far job (due beyond delay.tier.horizon) is"
            + " answered with inJournalTier 1: it stays in the journal and is loaded ahead of its due time."
            + " Idempotent.";
    private static final String RESTORE_409 =
            "the job is FINISHED or DELETED, or there is no journal" + " (delay.journal.mode=off); nothing changed";
    private static final String RESTORE_200 =
            "data is {scanned, restored, alreadyPresent, skippedExpired, inJournalTier}";
    private static final String NO_JOURNAL = "there is no journal to restore from (delay.journal.mode=off)";
    private static final String RESTORE_409_EXAMPLE = "job order-42-close is FINISHED: a final job is not restored";
    private static final String UNAVAILABLE =
            "Redis or the journal is unavailable (or the service is shutting" + " down)";

    private final DelayQueueEngine engine;

    public AdminController(DelayQueueEngine engine) {
        this.engine = engine;
    }

    @Operation(
            operationId = "restoreJobs",
            summary = "Restore every job Redis lacks",
            description = "Puts every non-final journaled job that Redis lacks back into Redis, page by page;"
                    + " expire=false skips jobs already due. Idempotent; data counts what it did.")
    @Answer(code = 200, when = RESTORE_200, example = "1 restored, 0 already in Redis")
    @Answer(code = 409, when = "there is no journal to restore from (delay.journal.mode=off)", example = NO_JOURNAL)
    @Answer(
            code = 503,
            when = UNAVAILABLE + "; what was restored before stays, calling again goes on",
            example = JobController.REDIS_503_EXAMPLE)
    @GetMapping("/reStore")
    public ResponseEntity<ApiResponse<RestoreReport>> restore(
            @Parameter(
                            description =
                                    "true (default): restore jobs whose due time has passed too; false: skip" + " them",
                            example = "true",
                            schema = @Schema(type = "boolean"))
                    @RequestParam(required = false)
                    String expire) {
        boolean includeExpired = parseBoolean("expire", expire, true);
        RestoreReport report = engine.restore(includeExpired);
        return ApiResponse.ok(
                report, report.restored() + " restored, " + report.alreadyPresent() + " already in Redis");
    }

    @Operation(
            operationId = "restoreJobByQuery",
            summary = "Restore one job (query form)",
            description = RESTORE_ONE + " The job is named by jobId, or by JobId as mykit-delay's README spells"
                    + " it; give one of them.")
    @Answer(code = 200, when = RESTORE_200, example = "restored")
    @Answer(
            code = 400,
            when = "jobId and JobId both missing, both given, or not a job id",
            example = "jobId and JobId name the same thing; give one")
    @Answer(code = 404, when = "the journal has no such job")
    @Answer(code = 409, when = RESTORE_409, example = RESTORE_409_EXAMPLE)
    @Answer(code = 503, when = UNAVAILABLE, example = JobController.REDIS_503_EXAMPLE)
    @GetMapping("/reStoreJob")
    public ResponseEntity<ApiResponse<RestoreReport>> restoreJob(
            @Parameter(description = "the job's id", example = EXAMPLE_ID, schema = @Schema(pattern = JOB_ID_PATTERN))
                    @RequestParam(required = false)
                    String jobId,
            @Parameter(
                            description = "the job's id, as mykit-delay's README spells it (give jobId or JobId)",
                            example = EXAMPLE_ID,
                            schema = @Schema(pattern = JOB_ID_PATTERN))
                    @RequestParam(name = "JobId", required = false)
                    String mykitJobId) {
        return restored(engine.restoreJob(requireOneJobId("jobId", jobId, "JobId", mykitJobId)));
    }

    @Operation(
            operationId = "restoreJob",
            summary = "Restore one job",
            description = RESTORE_ONE + " The path form of mykit-delay's client section (GET /reStore/{id}).")
    @Answer(code = 200, when = RESTORE_200, example = "restored")
    @Answer(code = 404, when = "the journal has no such job")
    @Answer(code = 409, when = RESTORE_409, example = RESTORE_409_EXAMPLE)
    @Answer(code = 503, when = UNAVAILABLE, example = JobController.REDIS_503_EXAMPLE)
    @GetMapping("/reStore/{id}")
    public ResponseEntity<ApiResponse<RestoreReport>> restoreJobByPath(
            @Parameter(description = "the job's id", example = EXAMPLE_ID, schema = @Schema(pattern = JOB_ID_PATTERN))
                    @PathVariable
                    String id) {
        return restored(engine.restoreJob(requireJobId("id", id)));
    }

    private static ResponseEntity<ApiResponse<RestoreReport>> restored(RestoreReport report) {
        String message = report.restored() == 1
                ? "restored"
                : report.inJournalTier() == 1
                        ? "in the journal tier (due beyond the horizon); it is loaded into Redis ahead of its due time"
                        : "already in Redis";
        return ApiResponse.ok(report, message);
    }

    @Operation(
            operationId = "getStats",
            summary = "Queue statistics",
            description = "Jobs per status, shard and topic; pending jobs per tier; hand-over lateness p50/p99/max"
                    + " over the last minute; dispatch counts. Open without the token.")
    @Answer(code = 200, when = "data is the statistics", example = "")
    @Answer(code = 503, when = "Redis is unavailable", example = JobController.REDIS_503_EXAMPLE)
    @GetMapping("/stats")
    public ResponseEntity<ApiResponse<EngineStats>> stats() {
        return ApiResponse.ok(engine.stats(), null);
    }

    @Operation(
            operationId = "clearAll",
            summary = "Delete every queued job",
            description = "Deletes every job not handed over yet (DELAY, READY), batch by batch as a delete does:"
                    + " journaled as DELETED, so no restore brings them back. Jobs being delivered are left to"
                    + " finish. Needs confirm=true.")
    @Answer(code = 200, when = "data is the number of jobs deleted", example = "0 jobs deleted")
    @Answer(
            code = 400,
            when = "confirm is not true",
            example = "confirm must be true to delete every queued job: call GET /clearAll?confirm=true")
    @Answer(
            code = 503,
            when = "the journal or Redis failed; the batch in hand is undone and the message says how"
                    + " many were deleted before it: calling again goes on",
            example = "2 jobs deleted before: " + JobController.JOURNAL_503)
    @Answer(
            code = 504,
            when = "the journal's answer for the batch in hand is unknown: those jobs are held (not"
                    + " delivered) until the reconciler settles them; the message says how many were deleted before",
            example = "2 jobs deleted before: " + JobController.JOURNAL_504)
    @GetMapping("/clearAll")
    public ResponseEntity<ApiResponse<Long>> clearAll(
            @Parameter(
                            description = "must be true: clearAll deletes every job not handed over yet",
                            required = true,
                            example = "true",
                            schema = @Schema(type = "boolean"))
                    @RequestParam(required = false)
                    String confirm) {
        if (!parseBoolean("confirm", confirm, false)) {
            throw new DelayQueueException.InvalidField(
                    "confirm", "must be true to delete every queued job: call GET /clearAll?confirm=true");
        }
        long deleted = engine.clearAll();
        return ApiResponse.ok(deleted, ApiResponse.count(deleted, "job") + " deleted");
    }
}
