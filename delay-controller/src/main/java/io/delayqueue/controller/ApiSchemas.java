package io.delayqueue.controller;

import io.delayqueue.queue.engine.EngineConfig;
import io.delayqueue.queue.engine.handover.DeadLetters;
import io.delayqueue.queue.engine.handover.PullSettings;
import io.delayqueue.queue.engine.push.JobFactory;
import io.swagger.v3.core.util.Json;
import io.swagger.v3.oas.models.media.ArraySchema;
import io.swagger.v3.oas.models.media.BooleanSchema;
import io.swagger.v3.oas.models.media.ComposedSchema;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.IntegerSchema;
import io.swagger.v3.oas.models.media.ObjectSchema;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.parameters.RequestBody;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

/**
 * The request bodies and the error envelope as the API description gives them: every field with its meaning, its
 * limits (the configured ones where a setting decides) and an example. The bodies are read as raw bytes ({@link
 * JobController}), so springdoc cannot derive them.
 */
final class ApiSchemas {
    static final String ERROR = "Error";
    /** The envelope of a 400: its data names the field ({@link #FIELD_ERROR}). */
    static final String BAD_INPUT = "BadInput";

    static final String FIELD_ERROR = "FieldError";
    /** The envelope of an error of {@code POST /push/batch} other than a 400: its data is the batch's ids. */
    static final String BATCH_ERROR = "BatchError";
    /** A job as the answers give it (springdoc derives it from {@link io.delayqueue.common.Job}). */
    static final String JOB = "Job";
    /** What {@code GET /get/{topic}} reserved: one job or null without count, a list with it. */
    static final String RESERVED_JOBS = "ReservedJobs";
    /** The envelope of {@code GET /get/{topic}}'s 200. */
    static final String RESERVE_ANSWER = "ReserveAnswer";
    /** The answer of {@code GET /jobs/{id}} ({@link JobController.JobLookup}). */
    static final String JOB_LOOKUP = "JobLookup";

    static final String JOURNAL_ENTRY = "JournalEntry";
    static final String PUSH_REQUEST = "PushRequest";
    static final String REQUEUE_REQUEST = "RequeueRequest";
    static final String DEAD_DELETE_REQUEST = "DeadDeleteRequest";
    static final String FINISH_REQUEST = "FinishRequest";

    static final String JOB_ID_PATTERN = QueryParameters.JOB_ID_PATTERN;
    /** The journal's column limit of subtopic and bizKey (JobFactory checks it). */
    private static final int MAX_SHORT_FIELD = 255;

    private ApiSchemas() {}

    /** The schemas by name, with the limits of {@code config}. */
    static Map<String, Schema<?>> all(EngineConfig config) {
        return Map.ofEntries(
                Map.entry(PUSH_REQUEST, pushRequest(config)),
                Map.entry(FINISH_REQUEST, finishRequest()),
                Map.entry(REQUEUE_REQUEST, deadIdsRequest("requeue")),
                Map.entry(DEAD_DELETE_REQUEST, deadIdsRequest("delete")),
                Map.entry(ERROR, errorEnvelope()),
                Map.entry(BATCH_ERROR, batchErrorEnvelope()),
                Map.entry(BAD_INPUT, badInputEnvelope()),
                Map.entry(FIELD_ERROR, fieldError()),
                Map.entry(RESERVED_JOBS, reservedJobs()),
                Map.entry(RESERVE_ANSWER, reserveAnswer()));
    }

    /** The 200 schemas that replace springdoc's, by {@code "METHOD path"}: where the handler's type says too little. */
    static Map<String, String> answers() {
        return Map.of("GET /get/{topic}", RESERVE_ANSWER);
    }

    private static Schema<?> reservedJobs() {
        Schema<?> jobs = new ComposedSchema()
                .oneOf(List.of(
                        new Schema<>().$ref(JOB),
                        new ArraySchema()
                                .items(new Schema<>().$ref(JOB))
                                .maxItems(PullSettings.MAX_COUNT)
                                .description("the jobs reserved, with count (empty when none came)")))
                .description("Without count, the job reserved (null when none came); with count, a list of the jobs"
                        + " reserved");
        // OpenAPI 3.0 allows nullable only beside a type, which a oneOf has not: generated clients read null from
        // this extension (openapi-generator does), readers from the description
        jobs.addExtension("x-nullable", true);
        return jobs;
    }

    private static Schema<?> reserveAnswer() {
        return new ObjectSchema()
                .description("The envelope of a reservation's 200")
                .addProperty("success", new BooleanSchema().description("true").example(true))
                .addProperty(
                        "code",
                        intSchema(200, 200).description("the HTTP status, 200").example(200))
                .addProperty("data", new Schema<>().$ref(RESERVED_JOBS))
                .addProperty(
                        "message",
                        new StringSchema()
                                .description("reserved, no job ready, or how many were reserved")
                                .example("reserved"))
                .required(List.of("success", "code", "message"));
    }

    /**
     * The request body of each operation that reads one, by {@code "METHOD path"}, with the limits of {@code config}
     * and a valid example.
     */
    static Map<String, RequestBody> bodies(EngineConfig config) {
        return Map.of(
                "POST /push",
                body("one job", new Schema<>().$ref(PUSH_REQUEST), PUSH_EXAMPLE, true),
                "POST /push/batch",
                body(
                        "up to delay.limits.max-batch-size jobs; one bad job rejects the batch",
                        listOf(PUSH_REQUEST).maxItems(config.limits().maxBatchSize()),
                        BATCH_EXAMPLE,
                        true),
                "POST /jobs/finish",
                body(
                        "up to 1000 reserved jobs to finish, each with its attempts as reserved (optional)",
                        listOf(FINISH_REQUEST),
                        FINISH_EXAMPLE,
                        true),
                "POST /dead/{topic}/requeue",
                body(
                        "{\"ids\": [...]}: those dead jobs; no body: every dead job of the topic",
                        new Schema<>().$ref(REQUEUE_REQUEST),
                        REQUEUE_EXAMPLE,
                        false),
                "POST /dead/{topic}/delete",
                body(
                        "{\"ids\": [...]}: those dead jobs; no body: every dead job of the topic",
                        new Schema<>().$ref(DEAD_DELETE_REQUEST),
                        REQUEUE_EXAMPLE,
                        false));
    }

    private static RequestBody body(String description, Schema<?> schema, String example, boolean required) {
        Content content = ApiDocumentation.json(schema);
        try {
            content.get("application/json").example(Json.mapper().readTree(example));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new RequestBody().required(required).description(description).content(content);
    }

    /** A valid push of {@link #pushRequest}. */
    static final String PUSH_EXAMPLE =
            "{\"id\":\"order-41-close\",\"topic\":\"order.close\",\"body\":\"{\\\"orderId\\\":41}\",\"delay\":30000}";

    static final String BATCH_EXAMPLE =
            "[{\"topic\":\"order.close\",\"body\":\"{\\\"orderId\\\":43}\",\"delay\":30000},"
                    + "{\"topic\":\"order.close\",\"body\":\"{\\\"orderId\\\":44}\",\"executeAt\":1767225600000}]";
    static final String FINISH_EXAMPLE = "[{\"id\":\"order-42-close\",\"attempts\":0}]";
    static final String REQUEUE_EXAMPLE = "{\"ids\":[\"order-42-close\"]}";

    private static Schema<?> pushRequest(EngineConfig config) {
        long maxDelay = config.limits().maxDelay().toMillis();
        int maxBody = config.limits().maxBodyBytes();
        return new ObjectSchema()
                .description("One job. topic and body are required; delay and executeAt are mutually exclusive"
                        + " (neither: due now). status, ttl and createTime are mykit-delay's push fields, taken as it"
                        + " documents them. Any other field is a 400.")
                .addProperty(
                        "id",
                        new StringSchema()
                                .description("the job's id; generated when absent. Pushing an id that exists"
                                        + " changes nothing and answers 200 with it")
                                .pattern(JOB_ID_PATTERN)
                                .maxLength(128)
                                .example("order-41-close"))
                .addProperty(
                        "topic",
                        new StringSchema()
                                .description("where the job goes at its due time (its dispatcher:"
                                        + " `delay.dispatch.topics.<topic>`, else `delay.dispatch.default`)")
                                .pattern(JobFactory.TOPIC.pattern())
                                .maxLength(64)
                                .example("order.close"))
                .addProperty(
                        "subtopic",
                        new StringSchema()
                                .description("a sub-topic (a RocketMQ tag, for instance)")
                                .maxLength(MAX_SHORT_FIELD)
                                .example("tag-a"))
                .addProperty(
                        "bizKey",
                        new StringSchema()
                                .description("a business key (an order number, for instance)")
                                .maxLength(MAX_SHORT_FIELD)
                                .example("order-41"))
                .addProperty(
                        "body",
                        new StringSchema()
                                .description("the payload handed over at the due time, stored and returned exactly"
                                        + " as sent; at most delay.limits.max-body-size UTF-8 bytes (" + maxBody
                                        + " here)")
                                .minLength(1)
                                .maxLength(maxBody)
                                .example("{\"orderId\":41}"))
                .addProperty(
                        "delay",
                        longSchema(0, maxDelay)
                                .description("milliseconds from now (from createTime when that is given), at most"
                                        + " delay.limits.max-delay")
                                .example(30000))
                .addProperty(
                        "executeAt",
                        longSchema(0, null)
                                .description("the due time, epoch milliseconds, at most delay.limits.max-delay"
                                        + " from now; a time already past means now")
                                .example(1767225600000L))
                .addProperty(
                        "ttr",
                        longSchema(1, maxDelay)
                                .description("for pull topics: milliseconds a consumer may hold the job before it"
                                        + " comes back (default delay.pull.default-ttr)")
                                .example(30000))
                .addProperty(
                        "maxAttempts",
                        intSchema(1, 1000)
                                .description("deliveries allowed before the job is DEAD (default"
                                        + " delay.retry.max-attempts)")
                                .example(5))
                .addProperty(
                        "url",
                        new StringSchema()
                                .description("the callback address, for topics dispatched by HTTP callback"
                                        + " (required there): an absolute http or https URL")
                                .format("uri")
                                .pattern("^[hH][tT][tT][pP][sS]?://")
                                .maxLength(2048)
                                .example("https://shop.example.com/hooks/order-close"))
                .addProperty(
                        "priority",
                        intSchema(Integer.MIN_VALUE, Integer.MAX_VALUE)
                                .description("informational priority, higher first where a dispatcher honours it")
                                .example(0))
                .addProperty(
                        "status",
                        intSchema(0, 0)
                                .description("mykit-delay's status on a push: only 0 (waiting to be put); the"
                                        + " service keeps a job's status")
                                .example(0))
                .addProperty(
                        "ttl",
                        longSchema(0, null)
                                .description("mykit-delay's reserved field: accepted (not negative) and ignored")
                                .example(12))
                .addProperty(
                        "createTime",
                        longSchema(0, null)
                                .description("mykit-delay's creation time, epoch milliseconds, kept as the job's"
                                        + " createTime: delay counts from it. At most "
                                        + JobFactory.CREATE_TIME_SKEW.toMinutes() + " minutes ahead of the"
                                        + " service's clock and at most delay.limits.max-delay before it;"
                                        + " createTime + delay at most delay.limits.max-delay from now. Not with"
                                        + " executeAt")
                                .example(1767225600000L))
                .required(List.of("topic", "body"));
    }

    private static Schema<?> finishRequest() {
        return new ObjectSchema()
                .description("A reserved job to finish")
                .addProperty(
                        "id",
                        new StringSchema()
                                .description("the job's id")
                                .pattern(JOB_ID_PATTERN)
                                .maxLength(128)
                                .example("order-42-close"))
                .addProperty(
                        "attempts",
                        intSchema(0, Integer.MAX_VALUE)
                                .description("the job's attempts as reserved: the finish counts only for that"
                                        + " reservation (STALE once it expired); absent: whichever it has now")
                                .example(0))
                .required(List.of("id"));
    }

    /** The ids of a requeue or a delete ({@code verb}) of dead jobs. */
    private static Schema<?> deadIdsRequest(String verb) {
        return new ObjectSchema()
                .description("The dead jobs to " + verb + "; send no body to " + verb + " every dead job of the topic")
                .addProperty(
                        "ids",
                        new ArraySchema()
                                .items(new StringSchema()
                                        .pattern(JOB_ID_PATTERN)
                                        .maxLength(128))
                                .minItems(1)
                                .maxItems(DeadLetters.MAX_REQUEUE_IDS)
                                .description("ids of dead jobs of the topic")
                                .example(List.of("order-42-close")))
                .required(List.of("ids"));
    }

    /** The envelope of every error. */
    private static Schema<?> errorEnvelope() {
        return new ObjectSchema()
                .description("The envelope of an error: success false, code equal to the HTTP status")
                .addProperty(
                        "success",
                        new BooleanSchema().description("false on an error").example(false))
                .addProperty(
                        "code",
                        intSchema(400, 599).description("the HTTP status").example(400))
                .addProperty(
                        "data",
                        new StringSchema()
                                .nullable(true)
                                .pattern(JOB_ID_PATTERN)
                                .maxLength(128)
                                .description("null, or the job the error concerns: a push's job id, to retry with;"
                                        + " the id of the job a 404 or 409 is about")
                                .example("order-41-close"))
                .addProperty(
                        "message",
                        new StringSchema()
                                .description("what went wrong, naming the field for bad input")
                                .example("topic must match [A-Za-z0-9._-]{1,64}"))
                .required(List.of("success", "code", "message"));
    }

    /** The envelope of an error of a batch push: its data the batch's ids, in order. */
    private static Schema<?> batchErrorEnvelope() {
        return new ObjectSchema()
                .description("The envelope of an error of a batch push other than a 400: success false, code equal to"
                        + " the HTTP status, data the batch's ids in order (null when the request was not read)")
                .addProperty(
                        "success",
                        new BooleanSchema().description("false on an error").example(false))
                .addProperty(
                        "code",
                        intSchema(400, 599).description("the HTTP status").example(503))
                .addProperty(
                        "data",
                        new ArraySchema()
                                .items(new StringSchema()
                                        .pattern(JOB_ID_PATTERN)
                                        .maxLength(128))
                                .maxItems(PullSettings.MAX_COUNT)
                                .nullable(true)
                                .description("the batch's job ids, in order: retrying with them is safe")
                                .example(List.of("order-43-close", "order-44-close")))
                .addProperty(
                        "message",
                        new StringSchema().description("what went wrong").example(JobController.JOURNAL_503))
                .required(List.of("success", "code", "message"));
    }

    /** The envelope of a 400: the error envelope, its data the field at fault. */
    private static Schema<?> badInputEnvelope() {
        return new ObjectSchema()
                .description("The envelope of bad input (400): nothing was written or done; data names the field at"
                        + " fault, as the message does (null only where the request could not be read as HTTP: a"
                        + " malformed request line, header or chunked body)")
                .addProperty(
                        "success",
                        new BooleanSchema().description("false on an error").example(false))
                .addProperty(
                        "code",
                        intSchema(400, 400).description("the HTTP status, 400").example(400))
                .addProperty("data", new Schema<>().$ref(FIELD_ERROR))
                .addProperty(
                        "message",
                        new StringSchema()
                                .description("what is wrong, starting with the field")
                                .example("[2].delay must not be negative"))
                .required(List.of("success", "code", "message"));
    }

    /** What a 400 names ({@link io.delayqueue.common.FieldError}). */
    private static Schema<?> fieldError() {
        return new ObjectSchema()
                .description("The field a 400 refused, and in a batch the job it belongs to")
                .addProperty(
                        "field",
                        new StringSchema()
                                .description("the field as the message names it: delay, a batch element's"
                                        + " [2].delay, jobs for the batch as a whole, body for the request body, a"
                                        + " query parameter's name")
                                .example("[2].delay"))
                .addProperty(
                        "index",
                        intSchema(0, Integer.MAX_VALUE)
                                .description("in a batch (POST /push/batch, POST /jobs/finish): the position of the"
                                        + " job at fault, from 0; absent outside a batch")
                                .example(2))
                .addProperty(
                        "id",
                        new StringSchema()
                                .description("the id the request gave the job at fault; absent when it gave none (a"
                                        + " generated id is fixed only once every job of the push is valid) or when"
                                        + " the id itself is at fault")
                                .pattern(JOB_ID_PATTERN)
                                .maxLength(128)
                                .example("order-43-close"))
                .required(List.of("field"));
    }

    /**
     * Gives the schemas springdoc derives from the answers' records what it cannot: each field's meaning and an
     * example, which fields are always there and which may be null. A field named here that the record lacks is
     * skipped, and a field of the record not named here stays undescribed: ApiDocumentationTest finds both.
     */
    @SuppressWarnings({"rawtypes", "unchecked"})
    static void describeDerived(Map<String, Schema> schemas) {
        Schema job = describe(
                schemas,
                JOB,
                "A job as the service keeps it",
                field("id", "the job's id: the client's, or generated (14 characters of [0-9a-z])", "order-41-close"),
                field("topic", "where the job goes at its due time", "order.close"),
                field(
                        "subtopic",
                        "the sub-topic given at the push (a RocketMQ tag, for instance); absent without",
                        "tag-a"),
                field("bizKey", "the business key given at the push; absent without", "order-41"),
                field("body", "the payload handed over at the due time, exactly as pushed", "{\"orderId\":41}"),
                field(
                        "executeAt",
                        "the current due time, epoch milliseconds (moves on when a retry is scheduled)",
                        1767225600000L),
                field("ttr", "for pull topics: milliseconds a consumer may hold the job before it comes back", 30000),
                field("maxAttempts", "deliveries allowed before the job is DEAD", 5),
                field(
                        "url",
                        "the callback address, for topics dispatched by HTTP callback; absent without",
                        "https://shop.example.com/hooks/order-close"),
                field("priority", "informational priority, higher first where a dispatcher honours it", 0),
                field(
                        "createTime",
                        "when the job was accepted (the push's createTime when it gave one), epoch milliseconds",
                        1767225570000L),
                field(
                        "status",
                        "DELAY: waiting for its due time; READY: due, waiting for its hand-over; RESERVED: handed to"
                                + " a consumer (or being delivered) and not finished yet; FINISHED; DELETED; DEAD: it used"
                                + " up its attempts",
                        "DELAY"),
                field("attempts", "failed deliveries so far (expired reservations and failed sends)", 0));
        job.required(List.of(
                "id",
                "topic",
                "body",
                "executeAt",
                "ttr",
                "maxAttempts",
                "priority",
                "createTime",
                "status",
                "attempts"));
        Schema lookup = describe(
                schemas,
                JOB_LOOKUP,
                "A job with its status, where it was found and its journaled history",
                field("job", "the job as it is now", null),
                field("status", "the job's status (job.status)", "DELAY"),
                field(
                        "tier",
                        "where the job was found: redis (the job as Redis holds it), or journal (only the journal holds"
                                + " it: a far job not loaded yet, or a final job Redis no longer keeps)",
                        "redis"),
                field(
                        "lastError",
                        "why the job's latest attempt failed, as its journal says (null when none did)",
                        "attempt 3: Connection refused"),
                field("history", "the job's journaled transitions, oldest first (empty without a journal)", null));
        if (lookup.getProperties() != null && lookup.getProperties().get("tier") instanceof Schema tier) {
            tier.setEnum(List.of("redis", "journal"));
        }
        if (lookup.getProperties() != null && lookup.getProperties().get("lastError") instanceof Schema lastError) {
            lastError.setNullable(true);
        }
        lookup.required(List.of("job", "status", "tier", "history"));
        Schema entry = describe(
                schemas,
                JOURNAL_ENTRY,
                "One journaled transition of a job",
                field("event", "what happened", "CREATED"),
                field("from", "the status before (null for CREATED)", null),
                field("to", "the status after", "DELAY"),
                field("at", "when, epoch milliseconds", 1767225570000L),
                field("host", "the instance that made it, by host name (null when not known)", "dq-1"),
                field("worker", "the instance's worker that made it (null when not known)", "push"),
                field(
                        "detail",
                        "why, when the service says: a failed send's error, say (null otherwise)",
                        "attempt 1: Connection refused"));
        for (String name : List.of("from", "host", "worker", "detail")) {
            if (entry.getProperties() != null && entry.getProperties().get(name) instanceof Schema property) {
                property.setNullable(true);
            }
        }
        entry.required(List.of("event", "to", "at"));
        describe(
                schemas,
                "Page",
                "A page of a topic's dead jobs",
                field("topic", "the topic", "order.close"),
                field("total", "dead jobs of the topic over every shard", 1),
                field("jobs", "the oldest of them (by their last due time), at most limit", null),
                field(
                        "lastErrors",
                        "why each listed job the journal knows of died, by id: its last failed attempt's error (empty"
                                + " without a journal, or when the journal cannot be read)",
                        Map.of("order-42-close", "attempt 5: Connection refused")));
        describe(
                schemas,
                "Requeue",
                "What a requeue of dead jobs did",
                field("requeued", "how many jobs are DELAY again, due now", 1),
                field(
                        "notRequeued",
                        "ids that named no dead job of the topic, with what they are instead (NOT_FOUND for an unknown"
                                + " id)",
                        Map.of("order-43-close", "NOT_FOUND")));
        describe(
                schemas,
                "Deletion",
                "What a delete of dead jobs did",
                field("deleted", "how many dead jobs are DELETED now (committed in the journal)", 1),
                field(
                        "notDeleted",
                        "ids that named no dead job of the topic, with what they are instead (NOT_FOUND for an unknown"
                                + " id)",
                        Map.of("order-43-close", "NOT_FOUND")));
        describe(
                schemas,
                "RestoreReport",
                "What a restore from the journal did",
                field("scanned", "non-final jobs read from the journal", 1),
                field("restored", "jobs put back into Redis", 1),
                field("alreadyPresent", "jobs Redis still held (left untouched)", 0),
                field("skippedExpired", "jobs whose due time had passed, skipped because expire=false", 0),
                field(
                        "inJournalTier",
                        "far jobs left in the journal tier: their shard's owner loads them into Redis ahead of their"
                                + " due time",
                        0));
        describe(
                schemas,
                "EngineStats",
                "The queue's statistics",
                field(
                        "role",
                        "this instance's part: standalone, leader, follower, disconnected or stopped (master/slave),"
                                + " or its cluster role",
                        "standalone"),
                field("byStatus", "jobs in Redis per status, over every shard", Map.of("DELAY", 8, "READY", 1)),
                field("readyByTopic", "ready jobs per topic, over every shard", Map.of("order.close", 1)),
                field("shards", "the same per shard", null),
                field("tiers", "pending jobs in Redis and in the journal tier", null),
                field("lateness", "how late jobs were handed over in the last minute", null),
                field(
                        "restored",
                        "jobs handed over since the start that were due before it or before a restore put them back"
                                + " (not in lateness)",
                        0),
                field("dispatched", "sends confirmed since the start", 120),
                field("dispatchFailures", "sends failed since the start", 2),
                field(
                        "staleOutcomes",
                        "outcomes (finishes, failed sends, put-backs) ignored since the start because their attempt"
                                + " was over",
                        0),
                field("pullWaiting", "consumers waiting in GET /get/{topic} now", 1),
                field("journal", "the journal's backlog now", null));
        describe(
                schemas,
                "ShardStats",
                "One shard's jobs in Redis",
                field("shard", "the shard's number", 0),
                field("byStatus", "jobs per status (final jobs until their retention ends)", Map.of("DELAY", 4)),
                field("bucketSize", "entries in the delay bucket (DELAY jobs plus RESERVED deadlines)", 4),
                field("readyByTopic", "ready jobs per topic", Map.of("order.close", 0)));
        Schema tiers = describe(
                schemas,
                "TierStats",
                "Pending jobs in Redis and in the journal tier",
                field(
                        "horizonMs",
                        "jobs due further ahead than this are kept in the journal only (0: tiers are off)",
                        86400000L),
                field("redisPending", "DELAY jobs in Redis", 8),
                field(
                        "journalPending",
                        "DELAY jobs in the journal due beyond the horizon, as last counted (null before a count)",
                        13),
                field(
                        "journalCountedAt",
                        "when that count was taken, epoch milliseconds (null with it)",
                        1767225570000L));
        for (String name : List.of("journalPending", "journalCountedAt")) {
            if (tiers.getProperties() != null && tiers.getProperties().get(name) instanceof Schema property) {
                property.setNullable(true);
            }
        }
        describe(
                schemas,
                "Snapshot",
                "Hand-over lateness over a window ending now, in milliseconds",
                field("windowMs", "the window's length", 60000),
                field("count", "jobs handed over in it", 120),
                field("p50", "the median lateness", 2),
                field("p99", "the 99th percentile", 9),
                field("max", "the largest", 14));
        describe(
                schemas,
                "Journal",
                "The journal's backlog",
                field("mode", "SYNC, ASYNC or OFF", "SYNC"),
                field("queuedRows", "rows handed to the journal and not committed yet", 0),
                field(
                        "lagMs",
                        "the age of the oldest row handed to the journal and not committed yet (0 when none waits)",
                        0));
        Schema outcome = describe(
                schemas,
                "FinishOutcome",
                "What a finish did to one job",
                field("id", "the job's id", "order-42-close"),
                field(
                        "outcome",
                        "FINISHED; STALE: that reservation is over (ignored); NOT_FOUND; NOT_RESERVED; UNKNOWN: Redis"
                                + " failed on its shard (finishing it again is safe)",
                        "FINISHED"),
                field("status", "the job's status now, when known", "FINISHED"));
        if (outcome.getProperties() != null && outcome.getProperties().get("status") instanceof Schema status) {
            status.setNullable(true);
        }
        schemas.forEach((name, schema) -> {
            if (name.startsWith("ApiResponse") && schema.getProperties() != null) {
                describeEnvelope(schema);
            }
        });
    }

    /** The success envelope springdoc derives from {@link ApiResponse}. */
    @SuppressWarnings("rawtypes")
    private static void describeEnvelope(Schema envelope) {
        Map<String, Schema> p = envelope.getProperties();
        envelope.description("The envelope of a success: success true, code equal to the HTTP status");
        p.get("success").description("true on a success");
        p.get("code").description("the HTTP status (200 or 202)");
        if (p.get("data").getDescription() == null) {
            p.get("data").description("what the operation answers (see its answer's description)");
        }
        p.get("message").description("what was done, for a person; null where the data says it all");
        p.get("message").setNullable(true);
        envelope.required(List.of("success", "code"));
    }

    /** One field of a derived schema: its description and example ({@code null}: none, for a reference). */
    private record Field(String name, String description, Object example) {}

    private static Field field(String name, String description, Object example) {
        return new Field(name, description, example);
    }

    @SuppressWarnings({"rawtypes", "unchecked"})
    private static Schema describe(Map<String, Schema> schemas, String name, String description, Field... fields) {
        Schema schema = schemas.get(name);
        if (schema == null || schema.getProperties() == null) {
            return new ObjectSchema(); // no answer's any more: ApiDocumentationTest says so
        }
        schema.description(description);
        for (Field f : fields) {
            Schema property = (Schema) schema.getProperties().get(f.name());
            if (property == null) {
                continue;
            }
            if (property.get$ref() != null) {
                continue; // a $ref's siblings are ignored: the schema it names describes it
            }
            property.description(f.description());
            if (f.example() != null) {
                property.example(f.example());
            }
        }
        return schema;
    }

    /** Up to {@link PullSettings#MAX_COUNT} items of {@code name}. */
    private static Schema<?> listOf(String name) {
        return new ArraySchema().items(new Schema<>().$ref(name)).minItems(1).maxItems(PullSettings.MAX_COUNT);
    }

    private static Schema<Number> longSchema(long minimum, Long maximum) {
        Schema<Number> s = new IntegerSchema().format("int64").minimum(BigDecimal.valueOf(minimum));
        return maximum == null ? s : s.maximum(BigDecimal.valueOf(maximum));
    }

    private static Schema<Number> intSchema(int minimum, int maximum) {
        return new IntegerSchema()
                .format("int32")
                .minimum(BigDecimal.valueOf(minimum))
                .maximum(BigDecimal.valueOf(maximum));
    }
}
