package io.delayqueue.config;

import io.delayqueue.queue.coordination.HaMode;
import io.delayqueue.queue.coordination.curator.ZooKeeperSettings;
import io.delayqueue.queue.dispatch.activemq.ActiveMqSettings;
import io.delayqueue.queue.dispatch.http.HttpCallbackSettings;
import io.delayqueue.queue.dispatch.rocketmq.RocketMqSettings;
import io.delayqueue.queue.engine.EngineConfig;
import io.delayqueue.queue.journal.JournalMode;
import io.delayqueue.queue.journal.mybatis.MyBatisJournal;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * Every {@code delay.*} setting of the service. Defaults come from {@link EngineConfig}'s constants, the
 * one place they are defined; {@link #toEngineConfig()} validates them. Each also binds from an
 * environment variable ({@code DELAY_SHARDS}, {@code DELAY_REDIS_URI}, ...).
 */
@ConfigurationProperties("delay")
public class DelayProperties {

    /** Number of shards (delay buckets); fixed for the life of a queue, since a job's shard follows from its id. */
    private int shards = EngineConfig.DEFAULT_SHARDS;

    /** How long a finished or deleted job stays readable in Redis (and its client id taken). */
    private Duration retention = EngineConfig.DEFAULT_RETENTION;

    private final Redis redis = new Redis();
    private final Scanner scanner = new Scanner();
    private final Pull pull = new Pull();
    private final Limits limits = new Limits();
    private final Dispatch dispatch = new Dispatch();
    private final Retry retry = new Retry();
    private final Security security = new Security();
    private final Metrics metrics = new Metrics();
    private final Ha ha = new Ha();
    private final Zk zk = new Zk();
    private final Journal journal = new Journal();
    private final Rocketmq rocketmq = new Rocketmq();
    private final Activemq activemq = new Activemq();
    private final Http http = new Http();
    private final Tier tier = new Tier();

    public int getShards() {
        return shards;
    }

    public void setShards(int shards) {
        this.shards = shards;
    }

    public Duration getRetention() {
        return retention;
    }

    public void setRetention(Duration retention) {
        this.retention = retention;
    }

    public Redis getRedis() {
        return redis;
    }

    public Scanner getScanner() {
        return scanner;
    }

    public Pull getPull() {
        return pull;
    }

    public Limits getLimits() {
        return limits;
    }

    public Dispatch getDispatch() {
        return dispatch;
    }

    public Retry getRetry() {
        return retry;
    }

    public Security getSecurity() {
        return security;
    }

    public Metrics getMetrics() {
        return metrics;
    }

    public Ha getHa() {
        return ha;
    }

    public Zk getZk() {
        return zk;
    }

    public Journal getJournal() {
        return journal;
    }

    public Rocketmq getRocketmq() {
        return rocketmq;
    }

    public Activemq getActivemq() {
        return activemq;
    }

    public Http getHttp() {
        return http;
    }

    public Tier getTier() {
        return tier;
    }

    /** The engine's settings; throws {@link IllegalArgumentException} naming a value it cannot work with. */
    public EngineConfig toEngineConfig() {
        return EngineConfig.builder()
                .shards(shards)
                .redisPrefix(redis.prefix)
                .retention(retention)
                .scanBatchSize(scanner.batchSize)
                .maxScanSleep(scanner.maxSleep)
                .scanLead(scanner.lead)
                .dispatchTimeout(dispatch.timeout)
                .maxInFlight(dispatch.maxInFlight)
                .defaultTtr(pull.defaultTtr)
                .maxPollTimeout(pull.maxTimeout)
                .pullRecheck(pull.recheck)
                .defaultMaxAttempts(retry.maxAttempts)
                .retryBackoff(retry.backoff)
                .maxDelay(limits.maxDelay)
                .maxBodyBytes((int) Math.min(Integer.MAX_VALUE, limits.maxBodySize.toBytes()))
                .maxBatchSize(limits.maxBatchSize)
                .defaultDispatcher(dispatch.defaultDispatcher)
                .topicDispatchers(dispatch.topics)
                .reconcileInterval(journal.reconcileInterval)
                .reconcileGrace(journal.reconcileGrace)
                .restorePageSize(journal.pageSize)
                .maxInFlightPerTopic(dispatch.maxInFlightPerTopic)
                .topicRetries(retry.topicRetries())
                .shutdownWait(dispatch.shutdownWait)
                .journalRetention(journal.retention)
                .purgeBatchSize(journal.purgeBatchSize)
                .purgeInterval(journal.purgeInterval)
                .purgePause(journal.purgePause)
                .tierHorizon(tier.horizon)
                .build();
    }

    /** The Redis that holds the queue. */
    public static class Redis {
        /** {@code redis://[user:password@]host:port[/db]}; unset runs an embedded Redis on a free port. */
        private String uri;

        /** Prefix of every key, so that several queues or tests can share one Redis. */
        private String prefix = EngineConfig.DEFAULT_REDIS_PREFIX;

        /** Largest number of pooled connections. */
        private int maxConnections = 32;

        /** Connect and read timeout of each Redis call. */
        private Duration timeout = Duration.ofSeconds(2);

        /** User of the Redis data nodes under Sentinel or Cluster (a single node takes it from the uri). */
        private String username;

        /** Password of the Redis data nodes under Sentinel or Cluster (a single node takes it from the uri). */
        private String password;

        private final Sentinel sentinel = new Sentinel();
        private final Cluster cluster = new Cluster();

        public String getUri() {
            return uri;
        }

        public void setUri(String uri) {
            this.uri = uri;
        }

        public String getPrefix() {
            return prefix;
        }

        public void setPrefix(String prefix) {
            this.prefix = prefix;
        }

        public int getMaxConnections() {
            return maxConnections;
        }

        public void setMaxConnections(int maxConnections) {
            this.maxConnections = maxConnections;
        }

        public Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }

        public String getUsername() {
            return username;
        }

        public void setUsername(String username) {
            this.username = username;
        }

        public String getPassword() {
            return password;
        }

        public void setPassword(String password) {
            this.password = password;
        }

        public Sentinel getSentinel() {
            return sentinel;
        }

        public Cluster getCluster() {
            return cluster;
        }
    }

    /** A Redis master found through Sentinel; set {@code master} and {@code nodes} to use it instead of the uri. */
    public static class Sentinel {
        /** Name of the master set the sentinels monitor. */
        private String master;

        /** The sentinels, {@code host:port} each. */
        private List<String> nodes = new ArrayList<>();

        /** Password of the sentinels themselves, when they require one. */
        private String password;

        public boolean isConfigured() {
            return master != null && !master.isBlank();
        }

        public String getMaster() {
            return master;
        }

        public void setMaster(String master) {
            this.master = master;
        }

        public List<String> getNodes() {
            return nodes;
        }

        public void setNodes(List<String> nodes) {
            this.nodes = nodes;
        }

        public String getPassword() {
            return password;
        }

        public void setPassword(String password) {
            this.password = password;
        }
    }

    /** A Redis Cluster; set {@code nodes} to use it instead of the uri. */
    public static class Cluster {
        /** Some nodes of the cluster, {@code host:port} each; the client discovers the rest. */
        private List<String> nodes = new ArrayList<>();

        /** Most attempts of one command while slots move or a master fails over. */
        private int maxAttempts = 5;

        public boolean isConfigured() {
            return nodes != null && !nodes.isEmpty();
        }

        public List<String> getNodes() {
            return nodes;
        }

        public void setNodes(List<String> nodes) {
            this.nodes = nodes;
        }

        public int getMaxAttempts() {
            return maxAttempts;
        }

        public void setMaxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
        }
    }

    /** How the instances of a queue share the work. */
    public static class Ha {
        /** {@code standalone} (this process scans every shard), {@code master-slave} or {@code cluster}. */
        private HaMode mode = HaMode.DEFAULT;

        /** This instance's name in ZooKeeper, unique among the live instances; unset: host, pid and a random tag. */
        private String instanceId;

        public HaMode getMode() {
            return mode;
        }

        public void setMode(HaMode mode) {
            this.mode = mode;
        }

        public String getInstanceId() {
            return instanceId;
        }

        public void setInstanceId(String instanceId) {
            this.instanceId = instanceId;
        }

        /** The configured id, or {@code <host>-<pid>-<random>}. */
        public String instanceIdOrGenerated() {
            if (instanceId != null && !instanceId.isBlank()) {
                return instanceId;
            }
            String host;
            try {
                host = InetAddress.getLocalHost().getHostName();
            } catch (UnknownHostException e) {
                host = "host";
            }
            return host.replace('/', '_') + "-"
                    + ManagementFactory.getRuntimeMXBean().getPid() + "-"
                    + UUID.randomUUID().toString().substring(0, 4);
        }
    }

    /** ZooKeeper, used by the {@code master-slave} and {@code cluster} modes. */
    public static class Zk {
        /** The ensemble, {@code host:port[,host:port...]}. */
        private String connect;

        /** Prefix of every ZooKeeper path the service writes (each queue then lives under its redis prefix). */
        private String namespace = ZooKeeperSettings.DEFAULT_NAMESPACE;

        /** A dead instance keeps its leadership or shards this long; the fail-over takes about this plus a second. */
        private Duration sessionTimeout = ZooKeeperSettings.DEFAULT_SESSION_TIMEOUT;

        /** Longest wait for a connection to ZooKeeper. */
        private Duration connectionTimeout = ZooKeeperSettings.DEFAULT_CONNECTION_TIMEOUT;

        private final RetryPolicy retry = new RetryPolicy();

        public String getConnect() {
            return connect;
        }

        public void setConnect(String connect) {
            this.connect = connect;
        }

        public String getNamespace() {
            return namespace;
        }

        public void setNamespace(String namespace) {
            this.namespace = namespace;
        }

        public Duration getSessionTimeout() {
            return sessionTimeout;
        }

        public void setSessionTimeout(Duration sessionTimeout) {
            this.sessionTimeout = sessionTimeout;
        }

        public Duration getConnectionTimeout() {
            return connectionTimeout;
        }

        public void setConnectionTimeout(Duration connectionTimeout) {
            this.connectionTimeout = connectionTimeout;
        }

        public RetryPolicy getRetry() {
            return retry;
        }

        /** The Curator settings; throws {@link IllegalArgumentException} naming a value it cannot work with. */
        public ZooKeeperSettings toSettings() {
            return new ZooKeeperSettings(
                    connect,
                    namespace,
                    sessionTimeout,
                    connectionTimeout,
                    retry.baseSleep,
                    retry.maxRetries,
                    retry.maxSleep);
        }

        /** Exponential back-off between retried ZooKeeper operations. */
        public static class RetryPolicy {
            /** First wait. */
            private Duration baseSleep = ZooKeeperSettings.DEFAULT_RETRY_BASE_SLEEP;

            /** Most retries of one operation. */
            private int maxRetries = ZooKeeperSettings.DEFAULT_RETRY_MAX_RETRIES;

            /** Longest wait. */
            private Duration maxSleep = ZooKeeperSettings.DEFAULT_RETRY_MAX_SLEEP;

            public Duration getBaseSleep() {
                return baseSleep;
            }

            public void setBaseSleep(Duration baseSleep) {
                this.baseSleep = baseSleep;
            }

            public int getMaxRetries() {
                return maxRetries;
            }

            public void setMaxRetries(int maxRetries) {
                this.maxRetries = maxRetries;
            }

            public Duration getMaxSleep() {
                return maxSleep;
            }

            public void setMaxSleep(Duration maxSleep) {
                this.maxSleep = maxSleep;
            }
        }
    }

    /** Tiered storage: Redis holds the near future, the journal the rest. */
    public static class Tier {
        /**
         * Jobs due further ahead than this live in the journal only and are loaded into Redis ahead of their due
         * time by their shard's owner; {@code 0} keeps every job in Redis. Needs the journal in {@code sync} mode
         * (ignored otherwise).
         */
        private Duration horizon = EngineConfig.DEFAULT_TIER_HORIZON;

        public Duration getHorizon() {
            return horizon;
        }

        public void setHorizon(Duration horizon) {
            this.horizon = horizon;
        }
    }

    /** The per-shard timers. */
    public static class Scanner {
        /** Most due jobs one scan moves in one Redis call. */
        private int batchSize = EngineConfig.DEFAULT_SCAN_BATCH_SIZE;

        /** Longest a scanner sleeps when its shard holds nothing due sooner. */
        private Duration maxSleep = EngineConfig.DEFAULT_MAX_SCAN_SLEEP;

        /**
         * How long before its due time a push-topic job is taken from Redis (0 to take none early); it is
         * handed over at its due time all the same.
         */
        private Duration lead = EngineConfig.DEFAULT_SCAN_LEAD;

        public Duration getLead() {
            return lead;
        }

        public void setLead(Duration lead) {
            this.lead = lead;
        }

        public int getBatchSize() {
            return batchSize;
        }

        public void setBatchSize(int batchSize) {
            this.batchSize = batchSize;
        }

        public Duration getMaxSleep() {
            return maxSleep;
        }

        public void setMaxSleep(Duration maxSleep) {
            this.maxSleep = maxSleep;
        }
    }

    /** Pull topics, consumed with {@code GET /get/{topic}}. */
    public static class Pull {
        /** Time-to-run of a reserved job whose push gave no {@code ttr}. */
        private Duration defaultTtr = EngineConfig.DEFAULT_TTR;

        /** Longest {@code timeout} a consumer may long-poll for. */
        private Duration maxTimeout = EngineConfig.DEFAULT_MAX_POLL_TIMEOUT;

        /** How often waiting consumers look for jobs made ready by another instance. */
        private Duration recheck = EngineConfig.DEFAULT_PULL_RECHECK;

        public Duration getDefaultTtr() {
            return defaultTtr;
        }

        public void setDefaultTtr(Duration defaultTtr) {
            this.defaultTtr = defaultTtr;
        }

        public Duration getMaxTimeout() {
            return maxTimeout;
        }

        public void setMaxTimeout(Duration maxTimeout) {
            this.maxTimeout = maxTimeout;
        }

        public Duration getRecheck() {
            return recheck;
        }

        public void setRecheck(Duration recheck) {
            this.recheck = recheck;
        }
    }

    /** Limits on what clients may push. */
    public static class Limits {
        /** Largest {@code body} of a job, in UTF-8 bytes. */
        private DataSize maxBodySize = DataSize.ofBytes(EngineConfig.DEFAULT_MAX_BODY_BYTES);

        /** Longest {@code delay} (and furthest {@code executeAt}) a job may have. */
        private Duration maxDelay = EngineConfig.DEFAULT_MAX_DELAY;

        /** Most jobs in one {@code POST /push/batch}. */
        private int maxBatchSize = EngineConfig.DEFAULT_MAX_BATCH_SIZE;

        public DataSize getMaxBodySize() {
            return maxBodySize;
        }

        public void setMaxBodySize(DataSize maxBodySize) {
            this.maxBodySize = maxBodySize;
        }

        public Duration getMaxDelay() {
            return maxDelay;
        }

        public void setMaxDelay(Duration maxDelay) {
            this.maxDelay = maxDelay;
        }

        public int getMaxBatchSize() {
            return maxBatchSize;
        }

        public void setMaxBatchSize(int maxBatchSize) {
            this.maxBatchSize = maxBatchSize;
        }
    }

    /** Where due jobs go. */
    public static class Dispatch {
        /**
         * Dispatcher of every topic not named in {@link #topics}: {@code console}, {@code pull}, {@code
         * rocketmq}, {@code activemq} or {@code http}.
         */
        private String defaultDispatcher = EngineConfig.DEFAULT_DISPATCHER;

        /** Dispatcher per topic, e.g. {@code delay.dispatch.topics.order=rocketmq}. */
        private Map<String, String> topics = new LinkedHashMap<>();

        /** How long a send may take before the job is delivered again. */
        private Duration timeout = EngineConfig.DEFAULT_DISPATCH_TIMEOUT;

        /** Most jobs between their move and a confirmed send, over all topics. */
        private int maxInFlight = EngineConfig.DEFAULT_MAX_IN_FLIGHT;

        /** Most jobs of one topic handed to its dispatcher and not yet confirmed; more wait their turn. */
        private int maxInFlightPerTopic = EngineConfig.DEFAULT_MAX_IN_FLIGHT_PER_TOPIC;

        /**
         * How long a graceful stop waits for sends in flight to be confirmed, so that it acknowledges them
         * instead of leaving them to be delivered again after the restart.
         */
        private Duration shutdownWait = EngineConfig.DEFAULT_SHUTDOWN_WAIT;

        public String getDefault() {
            return defaultDispatcher;
        }

        public void setDefault(String defaultDispatcher) {
            this.defaultDispatcher = defaultDispatcher;
        }

        public Map<String, String> getTopics() {
            return topics;
        }

        public void setTopics(Map<String, String> topics) {
            this.topics = topics;
        }

        public Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }

        public int getMaxInFlight() {
            return maxInFlight;
        }

        public void setMaxInFlight(int maxInFlight) {
            this.maxInFlight = maxInFlight;
        }

        public int getMaxInFlightPerTopic() {
            return maxInFlightPerTopic;
        }

        public void setMaxInFlightPerTopic(int maxInFlightPerTopic) {
            this.maxInFlightPerTopic = maxInFlightPerTopic;
        }

        public Duration getShutdownWait() {
            return shutdownWait;
        }

        public void setShutdownWait(Duration shutdownWait) {
            this.shutdownWait = shutdownWait;
        }
    }

    /** Failed sends. */
    public static class Retry {
        /** Deliveries a job gets before it is DEAD, when its push gave no {@code maxAttempts}. */
        private int maxAttempts = EngineConfig.DEFAULT_MAX_ATTEMPTS;

        /** Waits after the 1st, 2nd, ... failed send; the last repeats. */
        private List<Duration> backoff = EngineConfig.DEFAULT_RETRY_BACKOFF;

        /**
         * Ladder and max attempts per topic, e.g. {@code delay.retry.topics.order.backoff=1s,10s}; a topic
         * with dots in brackets: {@code delay.retry.topics[order.paid].max-attempts=3}.
         */
        private Map<String, TopicRetry> topics = new LinkedHashMap<>();

        public int getMaxAttempts() {
            return maxAttempts;
        }

        public void setMaxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
        }

        public List<Duration> getBackoff() {
            return backoff;
        }

        public void setBackoff(List<Duration> backoff) {
            this.backoff = backoff;
        }

        public Map<String, TopicRetry> getTopics() {
            return topics;
        }

        public void setTopics(Map<String, TopicRetry> topics) {
            this.topics = topics;
        }

        Map<String, EngineConfig.TopicRetry> topicRetries() {
            Map<String, EngineConfig.TopicRetry> out = new LinkedHashMap<>();
            topics.forEach((topic, t) -> out.put(topic, new EngineConfig.TopicRetry(t.backoff, t.maxAttempts)));
            return out;
        }
    }

    /** Retry settings of one topic; what is left unset comes from {@code delay.retry.*}. */
    public static class TopicRetry {
        /** The topic's backoff ladder. */
        private List<Duration> backoff;

        /** Deliveries a job of the topic gets before it is DEAD, when its push gave no {@code maxAttempts}. */
        private Integer maxAttempts;

        public List<Duration> getBackoff() {
            return backoff;
        }

        public void setBackoff(List<Duration> backoff) {
            this.backoff = backoff;
        }

        public Integer getMaxAttempts() {
            return maxAttempts;
        }

        public void setMaxAttempts(Integer maxAttempts) {
            this.maxAttempts = maxAttempts;
        }
    }

    /** Access control. */
    public static class Security {
        /** When set, calls that change the queue need {@code Authorization: Bearer <token>}. */
        private String token;

        public String getToken() {
            return token;
        }

        public void setToken(String token) {
            this.token = token;
        }
    }

    /** The metrics at /actuator/prometheus. */
    public static class Metrics {
        /** Topics that get a label of their own in the metrics; later ones share the label {@code _other}. */
        private int maxTopics = 100;

        public int getMaxTopics() {
            return maxTopics;
        }

        public void setMaxTopics(int maxTopics) {
            if (maxTopics < 1) {
                throw new IllegalArgumentException("delay.metrics.max-topics must be at least 1");
            }
            this.maxTopics = maxTopics;
        }
    }

    /** The MySQL journal (spring.datasource.*), from which the queue is restored after Redis is lost. */
    public static class Journal {
        /** {@code sync}: a push is answered once its row is committed; {@code async}; {@code off}. */
        private JournalMode mode = JournalMode.SYNC;

        /** Longest a transition other than a push or delete waits before it is written. */
        private Duration lag = Duration.ofMillis(200);

        /** Most rows one group commit writes. */
        private int maxRowsPerCommit = 10_000;

        /**
         * Longest a push (counted from its arrival, its wait for a combined round included) or a delete waits for
         * its commit: then 503 when no commit of it had started (nothing written), 504 when one had (it may land).
         */
        private Duration commitTimeout = Duration.ofSeconds(10);

        /** Threads (and connections) that commit new jobs, so one commit's disk flush overlaps the next. */
        private int createWriters = 2;

        /** Rows waiting for the database beyond which pushes are refused with 503 and other transitions wait. */
        private int queueCapacity = 1_000_000;

        /** How often the reconciler looks for overdue jobs that Redis lost. */
        private Duration reconcileInterval = EngineConfig.DEFAULT_RECONCILE_INTERVAL;

        /** How long past its due time a job must be before the reconciler checks Redis for it. */
        private Duration reconcileGrace = EngineConfig.DEFAULT_RECONCILE_GRACE;

        /** Jobs read per page by restore and the reconciler. */
        private int pageSize = EngineConfig.DEFAULT_RESTORE_PAGE_SIZE;

        /** Restore from the journal at start-up; unset means "when Redis is the embedded one". */
        private Boolean restoreOnStart;

        /**
         * How long a finished or deleted job and its history stay in the journal after their last update; 0 keeps
         * them forever. Must be 0 or at least {@code delay.retention}. Dead jobs are kept until requeued.
         */
        private Duration retention = EngineConfig.DEFAULT_JOURNAL_RETENTION;

        /** Jobs deleted per retention batch (one short transaction each, with their log rows). */
        private int purgeBatchSize = EngineConfig.DEFAULT_PURGE_BATCH_SIZE;

        /** How often retention looks for final jobs past it (on the instance that owns shard 0). */
        private Duration purgeInterval = EngineConfig.DEFAULT_PURGE_INTERVAL;

        /** Least pause between two retention batches; each is followed by at least four times as long as it took. */
        private Duration purgePause = EngineConfig.DEFAULT_PURGE_PAUSE;

        public JournalMode getMode() {
            return mode;
        }

        public void setMode(JournalMode mode) {
            this.mode = mode;
        }

        public Duration getLag() {
            return lag;
        }

        public void setLag(Duration lag) {
            this.lag = lag;
        }

        public int getMaxRowsPerCommit() {
            return maxRowsPerCommit;
        }

        public void setMaxRowsPerCommit(int maxRowsPerCommit) {
            this.maxRowsPerCommit = maxRowsPerCommit;
        }

        public Duration getCommitTimeout() {
            return commitTimeout;
        }

        public void setCommitTimeout(Duration commitTimeout) {
            this.commitTimeout = commitTimeout;
        }

        public int getCreateWriters() {
            return createWriters;
        }

        /** The writer's settings (mode, lag, group size, commit timeout, backlog, create writers). */
        public MyBatisJournal.Settings toSettings() {
            return new MyBatisJournal.Settings(
                    mode, lag, maxRowsPerCommit, commitTimeout, queueCapacity, createWriters);
        }

        public void setCreateWriters(int createWriters) {
            this.createWriters = createWriters;
        }

        public int getQueueCapacity() {
            return queueCapacity;
        }

        public void setQueueCapacity(int queueCapacity) {
            this.queueCapacity = queueCapacity;
        }

        public Duration getReconcileInterval() {
            return reconcileInterval;
        }

        public void setReconcileInterval(Duration reconcileInterval) {
            this.reconcileInterval = reconcileInterval;
        }

        public Duration getReconcileGrace() {
            return reconcileGrace;
        }

        public void setReconcileGrace(Duration reconcileGrace) {
            this.reconcileGrace = reconcileGrace;
        }

        public int getPageSize() {
            return pageSize;
        }

        public void setPageSize(int pageSize) {
            this.pageSize = pageSize;
        }

        public Boolean getRestoreOnStart() {
            return restoreOnStart;
        }

        public void setRestoreOnStart(Boolean restoreOnStart) {
            this.restoreOnStart = restoreOnStart;
        }

        public Duration getRetention() {
            return retention;
        }

        public void setRetention(Duration retention) {
            this.retention = retention;
        }

        public int getPurgeBatchSize() {
            return purgeBatchSize;
        }

        public void setPurgeBatchSize(int purgeBatchSize) {
            this.purgeBatchSize = purgeBatchSize;
        }

        public Duration getPurgeInterval() {
            return purgeInterval;
        }

        public void setPurgeInterval(Duration purgeInterval) {
            this.purgeInterval = purgeInterval;
        }

        public Duration getPurgePause() {
            return purgePause;
        }

        public void setPurgePause(Duration purgePause) {
            this.purgePause = purgePause;
        }
    }

    /** The RocketMQ dispatcher ({@code rocketmq}); created only when {@code namesrv} is set. */
    public static class Rocketmq {
        /** Name server address(es), {@code host:port[;host:port]}. */
        private String namesrv;

        /** Producer group the service sends as. */
        private String producerGroup = RocketMqSettings.DEFAULT_PRODUCER_GROUP;

        /** Longest a send may take, the client's own retries included; keep it well below the dispatch timeout. */
        private Duration sendTimeout = RocketMqSettings.DEFAULT_SEND_TIMEOUT;

        /** Times the client itself tries another broker within one send. */
        private int retries = RocketMqSettings.DEFAULT_RETRIES;

        /** Sends running at once. */
        private int threads = RocketMqSettings.DEFAULT_THREADS;

        /** Sends waiting for a thread; more are put back unsent for a moment. */
        private int maxPending = RocketMqSettings.DEFAULT_MAX_PENDING;

        public RocketMqSettings toSettings() {
            return new RocketMqSettings(namesrv, producerGroup, sendTimeout, retries, threads, maxPending);
        }

        public String getNamesrv() {
            return namesrv;
        }

        public void setNamesrv(String namesrv) {
            this.namesrv = namesrv;
        }

        public String getProducerGroup() {
            return producerGroup;
        }

        public void setProducerGroup(String producerGroup) {
            this.producerGroup = producerGroup;
        }

        public Duration getSendTimeout() {
            return sendTimeout;
        }

        public void setSendTimeout(Duration sendTimeout) {
            this.sendTimeout = sendTimeout;
        }

        public int getRetries() {
            return retries;
        }

        public void setRetries(int retries) {
            this.retries = retries;
        }

        public int getThreads() {
            return threads;
        }

        public void setThreads(int threads) {
            this.threads = threads;
        }

        public int getMaxPending() {
            return maxPending;
        }

        public void setMaxPending(int maxPending) {
            this.maxPending = maxPending;
        }
    }

    /** The ActiveMQ dispatcher ({@code activemq}); created only when {@code url} is set. */
    public static class Activemq {
        /** Broker URL, e.g. {@code tcp://host:61616}. */
        private String url;

        /** User name, unset for none. */
        private String user;

        /** Password, unset for none. */
        private String password;

        /** {@code queue} or {@code topic}: what a job's topic names on the broker. */
        private String destinationType =
                ActiveMqSettings.DEFAULT_DESTINATION_TYPE.name().toLowerCase(Locale.ROOT);

        /** {@code queue} or {@code topic} per job topic, e.g. {@code delay.activemq.destinations.news=topic}. */
        private Map<String, String> destinations = new LinkedHashMap<>();

        /** Longest a synchronous send or a connection attempt may take; keep it well below the dispatch timeout. */
        private Duration sendTimeout = ActiveMqSettings.DEFAULT_SEND_TIMEOUT;

        /** Sends running at once (pooled sessions). */
        private int threads = ActiveMqSettings.DEFAULT_THREADS;

        /** Sends waiting for a thread; more are put back unsent for a moment. */
        private int maxPending = ActiveMqSettings.DEFAULT_MAX_PENDING;

        public ActiveMqSettings toSettings() {
            Map<String, ActiveMqSettings.DestinationType> types = new LinkedHashMap<>();
            destinations.forEach((topic, type) -> types.put(
                    topic, ActiveMqSettings.DestinationType.parse(type, "delay.activemq.destinations." + topic)));
            return new ActiveMqSettings(
                    url,
                    user,
                    password,
                    ActiveMqSettings.DestinationType.parse(destinationType, "delay.activemq.destination-type"),
                    types,
                    sendTimeout,
                    threads,
                    maxPending);
        }

        public String getUrl() {
            return url;
        }

        public void setUrl(String url) {
            this.url = url;
        }

        public String getUser() {
            return user;
        }

        public void setUser(String user) {
            this.user = user;
        }

        public String getPassword() {
            return password;
        }

        public void setPassword(String password) {
            this.password = password;
        }

        public String getDestinationType() {
            return destinationType;
        }

        public void setDestinationType(String destinationType) {
            this.destinationType = destinationType;
        }

        public Map<String, String> getDestinations() {
            return destinations;
        }

        public void setDestinations(Map<String, String> destinations) {
            this.destinations = destinations;
        }

        public Duration getSendTimeout() {
            return sendTimeout;
        }

        public void setSendTimeout(Duration sendTimeout) {
            this.sendTimeout = sendTimeout;
        }

        public int getThreads() {
            return threads;
        }

        public void setThreads(int threads) {
            this.threads = threads;
        }

        public int getMaxPending() {
            return maxPending;
        }

        public void setMaxPending(int maxPending) {
            this.maxPending = maxPending;
        }
    }

    /** The HTTP-callback dispatcher ({@code http}): POSTs each job to its {@code url}. */
    public static class Http {
        /** Longest wait for a connection to the callback's host. */
        private Duration connectTimeout = HttpCallbackSettings.DEFAULT_CONNECT_TIMEOUT;

        /** Longest wait for the callback's answer once the request is sent. */
        private Duration readTimeout = HttpCallbackSettings.DEFAULT_READ_TIMEOUT;

        public HttpCallbackSettings toSettings() {
            return new HttpCallbackSettings(connectTimeout, readTimeout);
        }

        public Duration getConnectTimeout() {
            return connectTimeout;
        }

        public void setConnectTimeout(Duration connectTimeout) {
            this.connectTimeout = connectTimeout;
        }

        public Duration getReadTimeout() {
            return readTimeout;
        }

        public void setReadTimeout(Duration readTimeout) {
            this.readTimeout = readTimeout;
        }
    }
}
