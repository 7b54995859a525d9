package io.delayqueue.sample;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.apache.activemq.ActiveMQConnectionFactory;
import org.apache.activemq.command.ActiveMQMessage;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * A business system's side of delay-queue: subscribes to the ActiveMQ queue or the RocketMQ topic that a
 * delay-queue topic is dispatched to, or pulls a pull topic over HTTP in batches, and prints each job as it
 * arrives. Run it next to a service started with, say, {@code bin/run --delay.activemq.url=tcp://127.0.0.1:61616
 * --delay.dispatch.topics.order=activemq} (or {@code --delay.dispatch.topics.order=pull}):
 *
 * <pre>
 * mvn -q -pl delay-test test-compile exec:java -Dexec.classpathScope=test \
 *   -Dexec.mainClass=io.delayqueue.sample.SampleConsumer -Dexec.args="pull http://127.0.0.1:8080 order"
 * mvn -q -pl delay-test test-compile exec:java -Dexec.classpathScope=test \
 *   -Dexec.mainClass=io.delayqueue.sample.SampleConsumer -Dexec.args="activemq tcp://127.0.0.1:61616 order"
 * mvn -q -pl delay-test test-compile exec:java -Dexec.classpathScope=test \
 *   -Dexec.mainClass=io.delayqueue.sample.SampleConsumer -Dexec.args="rocketmq 127.0.0.1:9876 order"
 * </pre>
 *
 * Delivery is at least once: a consumer that must act once per job deduplicates by {@code jobId}.
 */
public final class SampleConsumer {
    private SampleConsumer() {}

    /**
     * One job as it arrived.
     *
     * @param destination the queue or topic it arrived on
     * @param tag the RocketMQ tag (the job's subtopic); for ActiveMQ the {@code subtopic} property
     * @param keys the RocketMQ keys ({@code bizKey} and job id); for ActiveMQ the {@code bizKey} property
     * @param storedAt when the broker stored it (RocketMQ store time, ActiveMQ broker-in time), epoch ms; 0 for a pull
     * @param receivedAt when this consumer got it, epoch ms
     */
    public record Delivery(
            String jobId,
            String destination,
            String tag,
            String keys,
            int attempts,
            long executeAt,
            String body,
            long storedAt,
            long receivedAt) {}

    /** Consumes the ActiveMQ queue {@code queue}; reconnects by itself with a {@code failover:} URL. */
    public static AutoCloseable activeMq(String url, String queue, Consumer<Delivery> onDelivery) throws JMSException {
        Connection connection = new ActiveMQConnectionFactory(url).createConnection();
        try {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue(queue));
            consumer.setMessageListener(message -> onDelivery.accept(toDelivery(queue, message)));
            connection.start();
        } catch (JMSException | RuntimeException e) {
            connection.close();
            throw e;
        }
        return connection::close;
    }

    private static Delivery toDelivery(String queue, Message message) {
        try {
            long now = System.currentTimeMillis();
            return new Delivery(
                    message.getStringProperty("jobId"),
                    queue,
                    message.getStringProperty("subtopic"),
                    message.getStringProperty("bizKey"),
                    message.getIntProperty("attempts"),
                    message.getLongProperty("executeAt"),
                    ((TextMessage) message).getText(),
                    message instanceof ActiveMQMessage m ? m.getBrokerInTime() : 0,
                    now);
        } catch (JMSException e) {
            throw new IllegalStateException("unreadable message: " + e.getMessage(), e);
        }
    }

    /**
     * Consumes the RocketMQ topic {@code topic} (every tag) as consumer group {@code group}, from the first
     * message the topic holds.
     */
    public static AutoCloseable rocketMq(String namesrv, String topic, String group, Consumer<Delivery> onDelivery)
            throws MQClientException {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(group);
        consumer.setNamesrvAddr(namesrv);
        consumer.setInstanceName("sample-consumer-" + UUID.randomUUID());
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        // look up routes and send heartbeats often: a restarted broker is found again quickly
        consumer.setPollNameServerInterval(1_000);
        consumer.setHeartbeatBrokerInterval(1_000);
        consumer.subscribe(topic, "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (messages, context) -> {
            long now = System.currentTimeMillis();
            for (MessageExt m : messages) {
                onDelivery.accept(new Delivery(
                        m.getUserProperty("jobId"),
                        m.getTopic(),
                        m.getTags(),
                        m.getKeys(),
                        Integer.parseInt(m.getUserProperty("attempts")),
                        Long.parseLong(m.getUserProperty("executeAt")),
                        new String(m.getBody(), StandardCharsets.UTF_8),
                        m.getStoreTimestamp(),
                        now));
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
        return consumer::shutdown;
    }

    /**
     * Pulls the pull topic {@code topic} of the service at {@code baseUrl} on a thread of its own, up to {@code
     * count} jobs per {@code GET /get/{topic}?count=} (long-polling 30 s when none is ready), and finishes each
     * batch with one {@code POST /jobs/finish} once every job of it was handled, naming the attempt it reserved (a
     * job whose reservation expired meanwhile is answered {@code STALE}: another consumer holds it now). Jobs
     * answered {@code UNKNOWN} are finished again with the next batch. A failing call is retried after a second.
     */
    public static AutoCloseable pull(String baseUrl, String topic, int count, Consumer<Delivery> onDelivery) {
        HttpClient http = HttpClient.newHttpClient();
        ObjectMapper json = new ObjectMapper();
        AtomicBoolean running = new AtomicBoolean(true);
        Thread puller = new Thread(
                () -> {
                    List<Map<String, Object>> unsettled = new ArrayList<>();
                    while (running.get()) {
                        try {
                            JsonNode jobs = call(
                                    http,
                                    json,
                                    HttpRequest.newBuilder(URI.create(
                                                    baseUrl + "/get/" + topic + "?timeout=30000&count=" + count))
                                            .timeout(Duration.ofSeconds(60)));
                            List<Map<String, Object>> finishes = new ArrayList<>(unsettled);
                            for (JsonNode job : jobs) {
                                long now = System.currentTimeMillis();
                                onDelivery.accept(new Delivery(
                                        job.path("id").asText(),
                                        topic,
                                        job.path("subtopic").asText(null),
                                        job.path("bizKey").asText(null),
                                        job.path("attempts").asInt(),
                                        job.path("executeAt").asLong(),
                                        job.path("body").asText(),
                                        0,
                                        now));
                                finishes.add(Map.of(
                                        "id",
                                        job.path("id").asText(),
                                        "attempts",
                                        job.path("attempts").asInt()));
                            }
                            unsettled.clear();
                            if (finishes.isEmpty()) {
                                continue;
                            }
                            JsonNode outcomes = call(
                                    http,
                                    json,
                                    HttpRequest.newBuilder(URI.create(baseUrl + "/jobs/finish"))
                                            .header("Content-Type", "application/json")
                                            .POST(HttpRequest.BodyPublishers.ofString(
                                                    json.writeValueAsString(finishes))));
                            for (int i = 0; i < outcomes.size(); i++) {
                                if (outcomes.get(i).path("outcome").asText().equals("UNKNOWN")) {
                                    unsettled.add(finishes.get(i));
                                }
                            }
                        } catch (IOException | RuntimeException e) {
                            System.err.println("pull from " + baseUrl + " failed, again in a second: " + e);
                            sleepASecond();
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                },
                "sample-pull-" + topic);
        puller.start();
        return () -> {
            running.set(false);
            puller.interrupt();
        };
    }

    /** One call's {@code data}; an answer other than 200 is an exception naming it. */
    private static JsonNode call(HttpClient http, ObjectMapper json, HttpRequest.Builder request)
            throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("HTTP " + response.statusCode() + ": " + response.body());
        }
        return json.readTree(response.body()).path("data");
    }

    private static void sleepASecond() {
        try {
            Thread.sleep(1_000); // a plain back-off between retries of a failed call
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * {@code activemq <url> <queue>}, {@code rocketmq <namesrv> <topic> [group]} or {@code pull <service url>
     * <topic> [count]}; runs until stopped.
     */
    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println(
                    "usage: activemq <url> <queue> | rocketmq <namesrv> <topic> [group] | pull <url> <topic> [count]");
            System.exit(2);
        }
        Consumer<Delivery> print = d -> System.out.println(d.receivedAt() + " " + d.destination() + " job "
                + d.jobId() + " (attempt " + (d.attempts() + 1) + ", due " + d.executeAt() + ", "
                + (d.receivedAt() - d.executeAt()) + " ms late): " + d.body());
        AutoCloseable consumer =
                switch (args[0]) {
                    case "activemq" -> activeMq(args[1], args[2], print);
                    case "rocketmq" -> rocketMq(
                            args[1], args[2], args.length > 3 ? args[3] : "delay-queue-sample", print);
                    case "pull" -> pull(args[1], args[2], args.length > 3 ? Integer.parseInt(args[3]) : 100, print);
                    default -> throw new IllegalArgumentException(
                            "source must be activemq, rocketmq or pull, not " + args[0]);
                };
        System.out.println("consuming " + args[2] + " from " + args[0] + " at " + args[1] + "; Ctrl-C stops");
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                consumer.close();
            } catch (Exception e) {
                System.err.println("closing the consumer failed: " + e);
            }
            stopped.countDown();
        }));
        stopped.await();
    }
}
