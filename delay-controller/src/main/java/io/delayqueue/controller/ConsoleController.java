package io.delayqueue.controller;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.JobIds;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.engine.ConsoleQueries;
import io.delayqueue.queue.engine.DelayQueueEngine;
import io.delayqueue.queue.engine.push.JobFactory;
import io.delayqueue.queue.journal.JobCursor;
import io.delayqueue.queue.journal.JobQuery;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.List;
import java.util.Locale;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * What the web console reads beside {@code /stats}: the samples of its charts, the job browser, the topics and the
 * cluster. Errors are mapped by {@link ApiExceptionHandler}; bad input gets a 400 naming the parameter.
 */
@RestController
@Tag(name = "console", description = "what the web console reads: its charts, the job browser, the topics, the cluster")
public class ConsoleController {
    static final int DEFAULT_PAGE = 50;

    private final DelayQueueEngine engine;
    private final ConsoleMetrics metrics;

    public ConsoleController(DelayQueueEngine engine, ConsoleMetrics metrics) {
        this.engine = engine;
        this.metrics = metrics;
    }

    @Operation(
            summary = "The console's charts: the last hour of samples",
            description = "Samples taken every delay.metrics.console-sample-interval (10 s by default), the last 360"
                    + " kept in memory, oldest first: pushes, hand-overs and restored hand-overs per second, hand-over"
                    + " lateness p50/p99 of the last minute (ms), pending jobs in Redis and in the journal tier, the"
                    + " journal's lag (ms) and the dead letters. A value that could not be read is null. Open without"
                    + " the token, as /stats is.")
    @Answer(code = 200, when = "data is {intervalMs, capacity, times: [epoch ms], series: {name: [value or null]}}")
    @GetMapping("/console/metrics")
    public ResponseEntity<ApiResponse<ConsoleMetrics.Snapshot>> metrics() {
        ConsoleMetrics.Snapshot snapshot = metrics.snapshot();
        return ApiResponse.ok(snapshot, ApiResponse.count(snapshot.times().size(), "sample"));
    }

    @Operation(
            summary = "The job browser: one page of jobs of a status",
            description = "Jobs of one status, of one topic or of all, as the journal has them (far jobs of the"
                    + " journal tier included), soonest due first or newest first, in keyset pages: pass the"
                    + " answer's next as after for the next page (null on the last page). Each job comes with its"
                    + " tier (redis, or journal for a far job and a final one) and its last error (the detail of its"
                    + " latest failed send, expired reservation or deferral, else of its death). Needs the token when"
                    + " delay.security.token is set: it lists the callers' job bodies.")
    @Answer(
            code = 200,
            when = "data is {jobs: [{job, tier, lastError}], next}: next is the after of the next page, null"
                    + " on the last one")
    @Answer(
            code = 400,
            when = "a parameter is missing, malformed or out of its range, or given twice; the message names it")
    @Answer(code = 409, when = "there is no journal to browse (delay.journal.mode=off)")
    @Answer(code = 503, when = "the journal's database did not answer")
    @GetMapping("/console/jobs")
    public ResponseEntity<ApiResponse<ConsoleQueries.JobPage>> jobs(
            @Parameter(
                            description = "the jobs' status",
                            required = true,
                            example = "DELAY",
                            schema =
                                    @Schema(
                                            allowableValues = {
                                                "DELAY",
                                                "READY",
                                                "RESERVED",
                                                "FINISHED",
                                                "DELETED",
                                                "DEAD"
                                            }))
                    @RequestParam(required = false)
                    String status,
            @Parameter(
                            description = "only this topic; absent: every topic",
                            example = QueryParameters.EXAMPLE_TOPIC,
                            schema = @Schema(pattern = QueryParameters.TOPIC_PATTERN))
                    @RequestParam(required = false)
                    String topic,
            @Parameter(
                            description = "soonest (default): by due time, earliest first; newest: by creation time,"
                                    + " latest first",
                            example = "soonest",
                            schema = @Schema(allowableValues = {"soonest", "newest"}))
                    @RequestParam(required = false)
                    String order,
            @Parameter(
                            description = "the next of the previous page (<due or creation time>:<id>); absent: the"
                                    + " first page",
                            example = "1767225600000:" + QueryParameters.EXAMPLE_ID,
                            schema = @Schema(pattern = "^-?[0-9]{1,19}:[A-Za-z0-9._:-]{1,128}$"))
                    @RequestParam(required = false)
                    String after,
            @Parameter(
                            description = "jobs per page (default " + DEFAULT_PAGE + ")",
                            example = "50",
                            schema =
                                    @Schema(
                                            type = "integer",
                                            format = "int32",
                                            minimum = "1",
                                            maximum = "" + ConsoleQueries.MAX_PAGE))
                    @RequestParam(required = false)
                    String limit) {
        JobStatus parsedStatus = parseStatus(status);
        if (topic != null
                && !topic.isEmpty()
                && !JobFactory.TOPIC.matcher(topic).matches()) {
            throw new DelayQueueException.InvalidField("topic", "must match [A-Za-z0-9._-]{1,64}");
        }
        JobQuery.Order parsedOrder = parseOrder(order);
        ConsoleQueries.JobPage page = engine.console()
                .browse(
                        parsedStatus,
                        topic == null || topic.isEmpty() ? null : topic,
                        parsedOrder,
                        parseCursor(after),
                        parseLimit(limit));
        return ApiResponse.ok(
                page,
                ApiResponse.count(page.jobs().size(), "job")
                        + (page.next() == null ? "" : ", more after " + page.next()));
    }

    @Operation(
            summary = "Every topic with its delayed, ready, reserved and dead jobs",
            description = "The topics that have jobs not final, by name, each with its DELAY (in Redis and in the"
                    + " journal tier), READY, RESERVED and DEAD jobs as the journal has them (a grouped count over"
                    + " the jobs not final; without a journal, the ready lists and dead letters of Redis). Open"
                    + " without the token, as /stats is.")
    @Answer(code = 200, when = "data is [{topic, delayed, ready, reserved, dead}], by topic")
    @Answer(code = 503, when = "the journal's database (or, without a journal, Redis) did not answer")
    @GetMapping("/console/topics")
    public ResponseEntity<ApiResponse<List<ConsoleQueries.TopicRow>>> topics() {
        List<ConsoleQueries.TopicRow> rows = engine.console().topics(engine.deadLetters());
        return ApiResponse.ok(rows, ApiResponse.count(rows.size(), "topic"));
    }

    @Operation(
            summary = "The cluster: instances, roles, shards and ZooKeeper",
            description = "The HA mode, this instance's id and ZooKeeper connection state, every instance taking part"
                    + " with its role and the shards assigned to it, and per shard its owner, whether this instance"
                    + " scans it, the owner epoch it moves the shard's jobs with, and its pending jobs in Redis. Open"
                    + " without the token, as /stats is.")
    @Answer(
            code = 200,
            when = "data is {coordination: {mode, self, zooKeeper, instances: [{id, role, shards}]}, shards: [{shard,"
                    + " owner, ownedHere, epoch, pending}]}")
    @Answer(code = 503, when = "Redis did not answer")
    @GetMapping("/console/cluster")
    public ResponseEntity<ApiResponse<ConsoleQueries.ClusterView>> cluster() {
        ConsoleQueries.ClusterView view = engine.console().cluster();
        return ApiResponse.ok(view, view.coordination().mode());
    }

    private static JobStatus parseStatus(String status) {
        if (status == null || status.isEmpty()) {
            throw new DelayQueueException.InvalidField(
                    "status", "is required: DELAY, READY, RESERVED, FINISHED," + " DELETED or DEAD");
        }
        try {
            return JobStatus.valueOf(status.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new DelayQueueException.InvalidField(
                    "status", "must be DELAY, READY, RESERVED, FINISHED, DELETED or DEAD");
        }
    }

    private static JobQuery.Order parseOrder(String order) {
        if (order == null || order.isEmpty() || order.equalsIgnoreCase("soonest")) {
            return JobQuery.Order.SOONEST;
        }
        if (order.equalsIgnoreCase("newest")) {
            return JobQuery.Order.NEWEST;
        }
        throw new DelayQueueException.InvalidField("order", "must be soonest or newest");
    }

    /** {@code <number>:<id>}; the id may hold colons itself. */
    private static JobCursor parseCursor(String after) {
        if (after == null || after.isEmpty()) {
            return null;
        }
        int colon = after.indexOf(':');
        if (colon > 0) {
            String id = after.substring(colon + 1);
            try {
                long value = Long.parseLong(after.substring(0, colon));
                if (JobIds.isClientId(id)) {
                    return new JobCursor(value, id);
                }
            } catch (NumberFormatException e) {
                // refused below
            }
        }
        throw new DelayQueueException.InvalidField("after", "must be the next of a previous page: <time>:<job id>");
    }

    private static int parseLimit(String limit) {
        if (limit == null || limit.isEmpty()) {
            return DEFAULT_PAGE;
        }
        try {
            int n = Integer.parseInt(limit);
            if (n >= 1 && n <= ConsoleQueries.MAX_PAGE) {
                return n;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new DelayQueueException.InvalidField("limit", "must be an integer from 1 to " + ConsoleQueries.MAX_PAGE);
    }
}
