package io.delayqueue.queue.dispatch.rocketmq;

import io.delayqueue.common.Job;
import io.delayqueue.queue.dispatch.BlockingSendPool;
import io.delayqueue.queue.dispatch.Dispatcher;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;

/**
 * Sends each due job to RocketMQ ({@code rocketmq-client}, the remoting protocol, through the name
 * server); see {@link RocketMqMessages} for the mapping. A send is confirmed only by {@code SEND_OK}: a
 * flush or replication timeout means the broker may not keep the message, so it is a failed attempt and
 * the job is sent again (the receiver deduplicates by key or the {@code jobId} property).
 *
 * <p>Sends are synchronous, each on a thread of the dispatcher's {@link BlockingSendPool} and bounded by
 * the send timeout, so a dead broker slows only the topics routed here.
 */
public final class RocketMqDispatcher implements Dispatcher {
    public static final String NAME = "rocketmq";

    private final RocketMqSettings settings;
    private final DefaultMQProducer producer;
    private final BlockingSendPool pool;

    /** @param maxQueueWait see {@link BlockingSendPool#maxQueueWait(Duration, Duration)} */
    public RocketMqDispatcher(RocketMqSettings settings, Duration maxQueueWait) {
        this.settings = settings;
        this.producer = new DefaultMQProducer(settings.producerGroup());
        producer.setNamesrvAddr(settings.namesrv());
        // a client instance of its own: never shares routes or connections with consumers in the same JVM
        producer.setInstanceName("delay-queue-" + UUID.randomUUID());
        producer.setSendMsgTimeout((int) settings.sendTimeout().toMillis());
        producer.setRetryTimesWhenSendFailed(settings.retries());
        producer.setVipChannelEnabled(false);
        try {
            producer.start();
        } catch (MQClientException e) {
            throw new IllegalStateException("the RocketMQ producer did not start: " + e.getMessage(), e);
        }
        this.pool = new BlockingSendPool(
                NAME, settings.threads(), settings.maxPending(), maxQueueWait, settings.sendTimeout());
    }

    @Override
    public String name() {
        return NAME;
    }

    public RocketMqSettings settings() {
        return settings;
    }

    @Override
    public CompletionStage<Void> dispatch(Job job) {
        return pool.submit(job, this::send);
    }

    private void send(Job job) throws Exception {
        SendResult result = producer.send(
                RocketMqMessages.toMessage(job), settings.sendTimeout().toMillis());
        if (result.getSendStatus() != SendStatus.SEND_OK) {
            throw new IllegalStateException("RocketMQ answered " + result.getSendStatus() + " for job " + job.id()
                    + " (message " + result.getMsgId() + "); only SEND_OK confirms");
        }
    }

    @Override
    public void close() {
        try {
            pool.close();
        } finally {
            producer.shutdown();
        }
    }
}
