package io.delayqueue.queue.store.redis;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobIds;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.journal.JobCursor;
import io.delayqueue.queue.store.Attempt;
import io.delayqueue.queue.store.DueBatch;
import io.delayqueue.queue.store.DueRouting;
import io.delayqueue.queue.store.JobStore;
import io.delayqueue.queue.store.NewMasterException;
import io.delayqueue.queue.store.Outcome;
import io.delayqueue.queue.store.ShardStats;
import io.delayqueue.queue.store.StaleEpochException;
import io.delayqueue.queue.store.StoreListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.ToLongFunction;
import redis.clients.jedis.UnifiedJedis;

/**
 * {@link JobStore} on Redis (Jedis {@link UnifiedJedis}: a single node, Sentinel or Cluster). Each
 * transition is one Lua script over the keys of one shard (see {@link RedisKeys}); the scripts are the
 * state machine, this class only encodes arguments and decodes replies. It composes the parts:
 * {@link ShardKeys} (the keys each script is given, and the recent topics), {@link StoreScripts} (the scripts and
 * their single runs), {@link ShardPipeline} (a script over the jobs of many shards in one round trip), {@link
 * Replies} (decoding), {@link PlainCommands} (the reads and counters that need no script), {@link ShardClear} and
 * {@link RedisFailures}.
 *
 * <p>Threading: as safe for concurrent callers as {@code redis} is ({@code JedisPooled} and {@code JedisCluster}
 * are: each command takes a pooled connection); its only state is the recent topics of {@link ShardKeys}
 * (a small map per shard under its own lock) and the scripts' listener (volatile).
 */
public final class RedisJobStore implements JobStore {
    private static final int PURGE_PER_MOVE = 200;

    private final UnifiedJedis redis;
    private final RedisKeys keys;
    private final ShardKeys shardKeys;
    private final StoreScripts scripts;
    private final ShardPipeline pipeline;
    private final PlainCommands plain;
    private final ShardClear clearing;
    private final int shards;
    private final long retentionMs;
    private final boolean ownsClient;
    private final ReplicaWait replicaWait;

    /**
     * @param retention how long a finished or deleted job stays readable (and its id taken) in Redis
     * @param ownsClient whether {@link #close()} closes {@code redis}
     */
    public RedisJobStore(UnifiedJedis redis, String prefix, int shards, Duration retention, boolean ownsClient) {
        this(redis, prefix, shards, retention, ownsClient, ReplicaWait.NONE);
    }

    /** @param replicaWait how {@link #awaitReplicas} waits for replicas (where the deployment has them) */
    public RedisJobStore(
            UnifiedJedis redis,
            String prefix,
            int shards,
            Duration retention,
            boolean ownsClient,
            ReplicaWait replicaWait) {
        if (shards < 1) {
            throw new IllegalArgumentException("shards must be at least 1");
        }
        this.redis = redis;
        this.keys = new RedisKeys(prefix);
        this.shardKeys = new ShardKeys(keys);
        this.scripts = new StoreScripts(redis, shardKeys);
        this.pipeline = new ShardPipeline(redis, shards);
        this.plain = new PlainCommands(redis, keys, shards);
        this.clearing = new ShardClear(scripts, shardKeys, plain);
        this.shards = shards;
        this.retentionMs = retention.toMillis();
        this.ownsClient = ownsClient;
        this.replicaWait = replicaWait;
    }

    /** Hears every script run: its name is the operation ({@code push}, {@code move_due}, ...), a fixed set. */
    @Override
    public void setListener(StoreListener listener) {
        scripts.setListener(listener);
    }

    public RedisKeys keys() {
        return keys;
    }

    @Override
    public int shards() {
        return shards;
    }

    /** A node number from a counter of the queue, seeded at random when missing ({@link PlainCommands#claimIdNode}). */
    @Override
    public int claimIdNode() {
        return plain.claimIdNode();
    }

    @Override
    public List<Boolean> push(List<Job> jobs) {
        return putBack(jobs, Job::executeAt);
    }

    /** push.lua as {@link #push} runs it, each job at the bucket score {@code scoreOf} gives. */
    @Override
    public List<Boolean> putBack(List<Job> jobs, ToLongFunction<Job> scoreOf) {
        return pipeline.perShard(
                jobs,
                scoreOf,
                scripts.push,
                (shard, shardJobs) -> {
                    List<String> k = shardKeys.countedKeys(shard);
                    for (Job job : shardJobs) {
                        if (job.status() == JobStatus.DEAD && !k.contains(keys.dead(shard, job.topic()))) {
                            k.add(keys.dead(shard, job.topic()));
                        }
                    }
                    return k;
                },
                r -> r == 1L,
                "Redis did not take {} pushed jobs of one shard: {}",
                Boolean[]::new);
    }

    @Override
    public long takeEpoch(int shard) {
        return plain.takeEpoch(shard);
    }

    @Override
    public DueBatch moveDue(
            int shard, long now, long leadMs, int limit, DueRouting routing, long dispatchTimeoutMs, long epoch) {
        List<String> args = new ArrayList<>(7 + routing.exceptions().size());
        args.add(Long.toString(now));
        args.add(Integer.toString(limit));
        args.add(routing.defaultPull() ? "1" : "0");
        args.add(Long.toString(dispatchTimeoutMs));
        args.add(Integer.toString(PURGE_PER_MOVE));
        args.add(Long.toString(leadMs));
        args.add(Long.toString(epoch));
        args.addAll(routing.exceptions());
        List<String> k = shardKeys.shardKeysAnd(shard, keys.epoch(shard), keys.replayedOnto(shard));
        Object result = scripts.runWithTopicKeys(scripts.moveDue, shard, k, args);
        if (result instanceof Long current) {
            throw new StaleEpochException(shard, epoch, current);
        }
        if (result instanceof List<?> reply && reply.size() == 1) {
            throw new NewMasterException(shard);
        }
        DueBatch batch = Replies.dueBatch((List<?>) result, now);
        shardKeys.usedBy(shard, batch);
        return batch;
    }

    @Override
    public List<Job> reserve(String topic, int shard, long now, int limit) {
        List<String> k = shardKeys.shardKeysAnd(shard, keys.ready(shard, topic), keys.replayedOnto(shard));
        Object result = scripts.run(scripts.reserve, k, List.of(Long.toString(now), Integer.toString(limit)));
        if (result instanceof Long) {
            throw new NewMasterException(shard);
        }
        List<?> reply = (List<?>) result;
        List<Job> jobs = new ArrayList<>(reply.size() / 2);
        for (int i = 0; i < reply.size(); i += 2) {
            jobs.add(PoolValues.decode((String) reply.get(i), (String) reply.get(i + 1)));
        }
        return jobs;
    }

    /** One finish script per shard, all in one pipeline ({@link ShardPipeline#finishAttempts}). */
    @Override
    public List<Outcome> finishAttempts(List<Attempt> attempts, long now) {
        return attempts.isEmpty()
                ? List.of()
                : pipeline.finishAttempts(scripts.finish, shardKeys::countedKeys, attempts, now, retentionMs);
    }

    @Override
    public List<Outcome> finishAttempts(int shard, List<Attempt> attempts, long now) {
        if (attempts.isEmpty()) {
            return List.of();
        }
        List<String> args = new ArrayList<>(attempts.size() * 2 + 2);
        args.add(Long.toString(now));
        args.add(Long.toString(retentionMs));
        for (Attempt attempt : attempts) {
            args.add(attempt.id());
            args.add(attempt.argument());
        }
        return Replies.outcomes((List<?>) scripts.run(scripts.finish, shardKeys.countedKeys(shard), args));
    }

    @Override
    public Outcome beginDelete(String id, long now, Job tombstone) {
        int shard = shardOf(id);
        List<String> args = new ArrayList<>(3);
        args.add(Long.toString(now));
        args.add(id);
        if (tombstone != null) {
            args.add(PoolValues.encode(
                    tombstone.withState(JobStatus.DELETED, tombstone.attempts(), tombstone.executeAt())));
        }
        return Replies.outcome((List<?>) scripts.run(scripts.delete, shardKeys.deleteKeys(shard), args));
    }

    /** delete_dead.lua; without a topic, each job's dead set is found as undo's ready lists are. */
    @Override
    public List<Outcome> beginDeadDeletes(String topic, int shard, List<String> ids, long now) {
        if (ids.isEmpty()) {
            return List.of();
        }
        List<String> args = new ArrayList<>(ids.size() + 2);
        args.add(Long.toString(now));
        args.add(topic == null ? "" : topic);
        args.addAll(ids);
        List<String> k = new ArrayList<>(shardKeys.deleteKeys(shard));
        if (topic != null) {
            k.add(keys.ready(shard, topic));
            k.add(keys.dead(shard, topic));
        }
        return Replies.outcomes((List<?>) scripts.runWithTopicKeys(scripts.deleteDead, shard, k, args));
    }

    @Override
    public List<String> confirmDeletes(int shard, List<String> ids, long now) {
        if (ids.isEmpty()) {
            return List.of();
        }
        List<String> args = new ArrayList<>(ids.size() + 2);
        args.add(Long.toString(now));
        args.add(Long.toString(retentionMs));
        args.addAll(ids);
        return Replies.strings((List<?>) scripts.run(scripts.confirmDelete, shardKeys.deleteKeys(shard), args));
    }

    @Override
    public Map<String, Long> undoDeletes(int shard, List<String> ids) {
        return undo(shard, "", ids);
    }

    @Override
    public Map<String, Long> undoAbandonedDeletes(int shard, List<String> ids, long begunBefore) {
        return undo(shard, Long.toString(begunBefore), ids);
    }

    private Map<String, Long> undo(int shard, String begunBefore, List<String> ids) {
        if (ids.isEmpty()) {
            return Map.of();
        }
        // each id may need one topic: chunks of MAX_NAMED_TOPICS ids keep every run's keys bounded
        Map<String, Long> undone = new LinkedHashMap<>();
        for (int from = 0; from < ids.size(); from += ShardKeys.MAX_NAMED_TOPICS) {
            List<String> args = new ArrayList<>(ShardKeys.MAX_NAMED_TOPICS + 1);
            args.add(begunBefore);
            args.addAll(ids.subList(from, Math.min(ids.size(), from + ShardKeys.MAX_NAMED_TOPICS)));
            List<?> reply =
                    (List<?>) scripts.runWithTopicKeys(scripts.undoDelete, shard, shardKeys.deleteKeys(shard), args);
            undone.putAll(Replies.dueTimesById(reply));
        }
        return undone;
    }

    @Override
    public boolean awaitReplicas(int shard) {
        return replicaWait.await(redis, keys.replicaMark(shard));
    }

    @Override
    public List<String> pendingDeletes(int shard, long begunBefore, int limit) {
        return plain.pendingDeletes(shard, begunBefore, limit);
    }

    @Override
    public Set<String> pendingDeletesAmong(List<String> ids) {
        return plain.pendingDeletesAmong(ids);
    }

    @Override
    public Outcome retry(Attempt attempt, long retryAt) {
        int shard = shardOf(attempt.id());
        List<String> args = List.of(attempt.id(), Long.toString(retryAt), attempt.argument());
        return Replies.outcome(
                (List<?>) scripts.runWithTopicKeys(scripts.retry, shard, shardKeys.shardKeys(shard), args));
    }

    @Override
    public Map<String, Outcome> deferAttempts(int shard, Map<Attempt, Long> retryAtByAttempt) {
        if (retryAtByAttempt.isEmpty()) {
            return Map.of();
        }
        List<String> ids = new ArrayList<>(retryAtByAttempt.size());
        List<String> args = new ArrayList<>(retryAtByAttempt.size() * 3);
        retryAtByAttempt.forEach((attempt, at) -> {
            ids.add(attempt.id());
            args.add(attempt.id());
            args.add(Long.toString(at));
            args.add(attempt.argument());
        });
        return Replies.outcomesById(ids, (List<?>) scripts.run(scripts.defer, shardKeys.shardKeys(shard), args));
    }

    @Override
    public List<Job> listDead(String topic, int shard, int limit) {
        return plain.listDead(topic, shard, limit);
    }

    @Override
    public List<String> deadBefore(String topic, int shard, long before, int limit) {
        return plain.deadBefore(topic, shard, before, limit);
    }

    @Override
    public List<String> topics(int shard) {
        return plain.topics(shard);
    }

    @Override
    public long countDead(String topic, int shard) {
        return plain.countDead(topic, shard);
    }

    /** One pipeline of {@code ZCARD}s, every shard of every topic. */
    @Override
    public Map<String, Long> countDead(Collection<String> topics) {
        return plain.countDead(topics);
    }

    @Override
    public List<Outcome> runNow(int shard, List<String> ids, long now) {
        if (ids.isEmpty()) {
            return List.of();
        }
        List<String> args = new ArrayList<>(ids.size() + 1);
        args.add(Long.toString(now));
        args.addAll(ids);
        return Replies.outcomes((List<?>) scripts.run(scripts.runNow, shardKeys.shardKeys(shard), args));
    }

    @Override
    public List<Outcome> requeueDead(String topic, int shard, List<String> ids, long now) {
        if (ids.isEmpty()) {
            return List.of();
        }
        List<String> args = new ArrayList<>(ids.size() + 3);
        args.add(Long.toString(now));
        args.add(topic);
        args.add("ids");
        args.addAll(ids);
        return Replies.outcomes((List<?>) scripts.run(scripts.requeueDead, shardKeys.deadKeys(shard, topic), args));
    }

    @Override
    public Requeued requeueOldestDead(String topic, int shard, int limit, long now) {
        List<String> args = List.of(Long.toString(now), topic, "oldest", Integer.toString(limit));
        List<?> reply = (List<?>) scripts.run(scripts.requeueDead, shardKeys.deadKeys(shard, topic), args);
        return new Requeued(Replies.strings((List<?>) reply.get(0)), ((Long) reply.get(1)) >= limit);
    }

    @Override
    public Optional<Job> find(String id) {
        return plain.find(id);
    }

    @Override
    public Map<String, Job> findAll(List<String> ids) {
        return plain.findAll(ids);
    }

    @Override
    public Map<String, JobStatus> statuses(List<String> ids) {
        return plain.statuses(ids);
    }

    /** {@link ShardClear#clear}: the bucket, then the non-empty ready lists a page at a time. */
    @Override
    public ClearBatch clear(int shard, int offset, int limit, long now) {
        return clearing.clear(shard, offset, limit, now);
    }

    @Override
    public ShardStats stats(int shard) {
        return plain.stats(shard, () -> countTopics(shard));
    }

    /**
     * Counts the shard's jobs per topic once (count_topics.lua), so that the scripts forget topics with no job left
     * from then on: run by the first {@link #stats} of a shard that was not counted (after an upgrade from a version
     * that did not count, or after Redis lost its data).
     */
    private void countTopics(int shard) {
        scripts.run(
                scripts.countTopics, List.of(keys.pool(shard), keys.topics(shard), keys.topicJobs(shard)), List.of());
    }

    @Override
    public MasterState masterState(int shard) {
        return masterAgreed(shard, "");
    }

    @Override
    public MasterState markReplayed(int shard, String masterId) {
        return masterAgreed(shard, masterId);
    }

    private MasterState masterAgreed(int shard, String mark) {
        List<?> reply = (List<?>) scripts.run(scripts.masterAgreed, List.of(keys.replayedOnto(shard)), List.of(mark));
        return new MasterState((String) reply.get(0), (String) reply.get(1));
    }

    @Override
    public List<Replayed> replay(int shard, List<JournaledState> states, long now) {
        if (states.isEmpty()) {
            return List.of();
        }
        // a job made final leaves its topic's count (lib.lua): the topic keys are declared
        List<String> k = shardKeys.countedKeys(shard);
        List<String> args = new ArrayList<>(2 + states.size() * 5);
        args.add(Long.toString(now));
        args.add(Long.toString(retentionMs));
        for (JournaledState state : states) {
            if (state.status() == JobStatus.DEAD && !k.contains(keys.dead(shard, state.topic()))) {
                k.add(keys.dead(shard, state.topic()));
            }
            args.add(state.id());
            args.add(state.status().name());
            args.add(Integer.toString(state.attempts()));
            args.add(Long.toString(state.score()));
            args.add(state.topic());
        }
        List<?> reply = (List<?>) scripts.run(scripts.replay, k, args);
        List<Replayed> out = new ArrayList<>(reply.size());
        for (Object code : reply) {
            out.add(Replayed.values()[((Long) code).intValue()]);
        }
        return out;
    }

    @Override
    public TierMark raiseTierIntent(int shard, long intent, String token, long epoch) {
        Object result = scripts.run(
                scripts.tierIntent,
                List.of(keys.tier(shard), keys.epoch(shard)),
                List.of(Long.toString(intent), Long.toString(epoch), token));
        if (result instanceof Long current) {
            throw new StaleEpochException(shard, epoch, current);
        }
        return Replies.tierMark((List<?>) result);
    }

    @Override
    public TierLoad loadTier(int shard, TierPage page, long now, long maxAgeMs, long epoch) {
        List<String> args = new ArrayList<>(9 + page.jobs().size() * 3);
        args.add(Long.toString(epoch));
        args.add(Long.toString(page.readAt()));
        args.add(Long.toString(now));
        args.add(Long.toString(maxAgeMs));
        args.add(Long.toString(page.to().dueAt()));
        args.add(page.to().id());
        args.add(page.readUnder().token());
        args.add(Long.toString(page.readUnder().intent()));
        args.add(page.from().equals(JobCursor.START) ? "1" : "0");
        for (Job job : page.jobs()) {
            args.add(job.id());
            args.add(PoolValues.encode(job));
            args.add(Long.toString(job.executeAt()));
        }
        List<String> k = shardKeys.countedKeys(shard, keys.tier(shard), keys.epoch(shard));
        Object result = scripts.run(scripts.tierLoad, k, args);
        if (result instanceof Long current) {
            throw new StaleEpochException(shard, epoch, current);
        }
        return Replies.tierLoad((List<?>) result);
    }

    @Override
    public List<String> absent(int shard, List<String> ids) {
        if (ids.isEmpty()) {
            return List.of();
        }
        return Replies.strings((List<?>) scripts.run(scripts.tierAbsent, List.of(keys.pool(shard)), ids));
    }

    @Override
    public List<Admission> admit(List<Job> jobs) {
        return pipeline.perShard(
                jobs,
                Job::executeAt,
                scripts.tierAdmit,
                (shard, shardJobs) -> shardKeys.countedKeys(shard, keys.tier(shard)),
                r -> r == 1 ? Admission.ADMITTED : r == 0 ? Admission.PRESENT : Admission.LEFT_TO_LOADER,
                "Redis did not admit {} far jobs of one shard: {}",
                Admission[]::new);
    }

    @Override
    public void close() {
        if (ownsClient) {
            redis.close();
        }
    }

    private int shardOf(String id) {
        return JobIds.shardOf(id, shards);
    }
}
