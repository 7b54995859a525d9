package io.delayqueue.queue.dispatch.activemq;

import io.delayqueue.common.Job;
import io.delayqueue.queue.dispatch.BlockingSendPool;
import io.delayqueue.queue.dispatch.Dispatcher;
import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.Destination;
import jakarta.jms.JMSException;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import org.apache.activemq.ActiveMQConnectionFactory;
import org.messaginghub.pooled.jms.JmsPoolConnectionFactory;

/**
 * Sends each due job to ActiveMQ (OpenWire, {@code activemq-client}, Jakarta JMS): a persistent {@link
 * TextMessage} whose text is the job's body, to a queue (or, by configuration, a topic) named as the job's
 * topic. The job's fields travel as message properties ({@value #JOB_ID}, {@value #TOPIC}, {@value
 * #SUBTOPIC}, {@value #BIZ_KEY}, {@value #ATTEMPTS}, {@value #EXECUTE_AT}, {@value #CREATE_TIME}).
 *
 * <p>A send is confirmed when the synchronous, persistent send returns: the broker has stored the message
 * and answered. Connections and sessions come from a pooled-jms pool (one connection, a session per
 * thread); a connection that failed is dropped by the pool and a new one is made on the next send, so the
 * dispatcher recovers by itself when the broker comes back. Sends run on the dispatcher's {@link
 * BlockingSendPool}, each bounded by the send timeout; only a broker that accepts the TCP connection and
 * then never answers holds a send for the OpenWire handshake's own timeout (15 s) first.
 */
public final class ActiveMqDispatcher implements Dispatcher {
    public static final String NAME = "activemq";

    public static final String JOB_ID = "jobId";
    public static final String TOPIC = "topic";
    public static final String SUBTOPIC = "subtopic";
    public static final String BIZ_KEY = "bizKey";
    public static final String ATTEMPTS = "attempts";
    public static final String EXECUTE_AT = "executeAt";
    public static final String CREATE_TIME = "createTime";

    private final ActiveMqSettings settings;
    private final JmsPoolConnectionFactory connections;
    private final BlockingSendPool pool;

    /** @param maxQueueWait see {@link BlockingSendPool#maxQueueWait(Duration, Duration)} */
    public ActiveMqDispatcher(ActiveMqSettings settings, Duration maxQueueWait) {
        this.settings = settings;
        int timeoutMs = (int) settings.sendTimeout().toMillis();
        ActiveMQConnectionFactory factory = new ActiveMQConnectionFactory(settings.url());
        factory.setUserName(settings.user());
        factory.setPassword(settings.password());
        factory.setAlwaysSyncSend(true);
        factory.setUseAsyncSend(false);
        factory.setSendTimeout(timeoutMs);
        factory.setConnectResponseTimeout(timeoutMs);
        factory.setCloseTimeout(timeoutMs);
        // a producer needs no advisory consumer
        factory.setWatchTopicAdvisories(false);
        this.connections = new JmsPoolConnectionFactory();
        connections.setConnectionFactory(factory);
        connections.setMaxConnections(1);
        connections.setMaxSessionsPerConnection(settings.threads());
        connections.setBlockIfSessionPoolIsFull(true);
        connections.setBlockIfSessionPoolIsFullTimeout(timeoutMs);
        connections.setUseAnonymousProducers(true);
        connections.start();
        this.pool = new BlockingSendPool(
                NAME, settings.threads(), settings.maxPending(), maxQueueWait, settings.sendTimeout());
    }

    @Override
    public String name() {
        return NAME;
    }

    public ActiveMqSettings settings() {
        return settings;
    }

    @Override
    public CompletionStage<Void> dispatch(Job job) {
        return pool.submit(job, this::send);
    }

    private void send(Job job) throws JMSException {
        try (Connection connection = connections.createConnection();
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE)) {
            Destination destination = settings.destinationTypeOf(job.topic()) == ActiveMqSettings.DestinationType.TOPIC
                    ? session.createTopic(job.topic())
                    : session.createQueue(job.topic());
            try (MessageProducer producer = session.createProducer(destination)) {
                producer.setDeliveryMode(DeliveryMode.PERSISTENT);
                producer.send(toMessage(session, job));
            }
        }
    }

    static TextMessage toMessage(Session session, Job job) throws JMSException {
        TextMessage message = session.createTextMessage(job.body());
        message.setStringProperty(JOB_ID, job.id());
        message.setStringProperty(TOPIC, job.topic());
        if (job.subtopic() != null) {
            message.setStringProperty(SUBTOPIC, job.subtopic());
        }
        if (job.bizKey() != null) {
            message.setStringProperty(BIZ_KEY, job.bizKey());
        }
        message.setIntProperty(ATTEMPTS, job.attempts());
        message.setLongProperty(EXECUTE_AT, job.executeAt());
        message.setLongProperty(CREATE_TIME, job.createTime());
        return message;
    }

    @Override
    public void close() {
        try {
            pool.close();
        } finally {
            connections.stop();
        }
    }
}
