package io.delayqueue.sample;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A business system pushing jobs: {@code count} jobs of one topic over {@code POST /push/batch}, each with
 * a random delay up to {@code maxDelayMs}, a subtopic, a business key and a body. Against a running service:
 *
 * <pre>
 * mvn -q -pl delay-test test-compile exec:java -Dexec.classpathScope=test \
 *   -Dexec.mainClass=io.delayqueue.sample.SamplePusher -Dexec.args="http://127.0.0.1:8080 order 100 5000"
 * </pre>
 */
public final class SamplePusher {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int BATCH = 500;

    private final String baseUrl;
    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    public SamplePusher(String baseUrl) {
        this.baseUrl = baseUrl;
    }

    /** One job as pushed: the id the service gave it, what it carries, and when the push was sent. */
    public record Pushed(
            String id, String topic, String subtopic, String bizKey, String body, long delayMs, long sentAt) {}

    /** Pushes {@code count} jobs of {@code topic}; fails on any answer but 200. */
    public List<Pushed> push(String topic, String subtopic, int count, long maxDelayMs, Random random)
            throws IOException, InterruptedException {
        List<Pushed> pushed = new ArrayList<>(count);
        for (int from = 0; from < count; from += BATCH) {
            List<Map<String, Object>> jobs = new ArrayList<>();
            for (int i = from; i < Math.min(count, from + BATCH); i++) {
                Map<String, Object> job = new LinkedHashMap<>();
                job.put("topic", topic);
                job.put("subtopic", subtopic);
                job.put("bizKey", topic + "-order-" + i);
                job.put("body", "close order " + i + " of " + topic);
                job.put("delay", maxDelayMs == 0 ? 0 : (long) random.nextInt((int) maxDelayMs + 1));
                jobs.add(job);
            }
            long sentAt = System.currentTimeMillis();
            HttpResponse<String> response = client.send(
                    HttpRequest.newBuilder(URI.create(baseUrl + "/push/batch"))
                            .timeout(Duration.ofSeconds(30))
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(jobs)))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IOException("POST /push/batch answered " + response.statusCode() + ": " + response.body());
            }
            JsonNode ids = JSON.readTree(response.body()).path("data");
            for (int i = 0; i < jobs.size(); i++) {
                Map<String, Object> job = jobs.get(i);
                pushed.add(new Pushed(
                        ids.get(i).asText(),
                        topic,
                        subtopic,
                        (String) job.get("bizKey"),
                        (String) job.get("body"),
                        (Long) job.get("delay"),
                        sentAt));
            }
        }
        return pushed;
    }

    /** {@code <base url> <topic> <count> <max delay ms>}. */
    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            System.err.println("usage: <base url> <topic> <count> <max delay ms>");
            System.exit(2);
        }
        List<Pushed> pushed = new SamplePusher(args[0])
                .push(args[1], "sample", Integer.parseInt(args[2]), Long.parseLong(args[3]), new Random());
        pushed.forEach(p -> System.out.println("pushed " + p.id() + " due in " + p.delayMs() + " ms: " + p.body()));
    }
}
