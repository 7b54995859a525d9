package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.Chromium;
import io.delayqueue.e2e.support.FreePorts;
import io.delayqueue.e2e.support.RecordingDispatcherConfig;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.ServiceTest;
import io.delayqueue.queue.testing.RecordingDispatcher;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The web console at {@code /}, driven in Debian's headless Chromium as an operator would use it, on a service
 * with a token: its pages reached by their addresses (the job browser's filter in it, a job's id), back and forward;
 * the page asks for the token at the first call that needs it, then pushes a job that is counted and delivered,
 * draws its charts from the sampled meters, counts pending jobs of both tiers saying where each count comes from,
 * lists jobs in the browser (a far job of the journal tier among them) and opens one's page, deletes one and runs
 * another now from their pages, shows the topics with their counts, requeues a dead letter from its row, and shows
 * the shards of the cluster page. Each action's answer (an error too) is shown beside its control; jobs chosen in
 * the list are run now, deleted or requeued once a confirmation says how many; times are written one way, with the
 * zone, local or UTC by a switch. Screenshots go to {@code target/screenshots/} (those in {@code docs/} are copies).
 */
@ServiceTest(
        properties = {
            "delay.dispatch.default=" + RecordingDispatcher.NAME,
            "delay.dispatch.topics." + WebConsoleTest.PULL_TOPIC + "=pull",
            "delay.dispatch.topics." + WebConsoleTest.DEAD_TOPIC + "=pull",
            "delay.dispatch.topics." + WebConsoleTest.NARROW_TOPIC + "=pull",
            "delay.dispatch.topics." + WebConsoleTest.BULK_DEAD_TOPIC + "=pull",
            "delay.dispatch.topics." + WebConsoleTest.REFUSED_TOPIC + "=http",
            "delay.retry.topics." + WebConsoleTest.REFUSED_TOPIC + ".backoff=20ms,40ms",
            "delay.security.token=" + WebConsoleTest.TOKEN,
            // charts with data within the test: a sample every half second
            "delay.metrics.console-sample-interval=500ms"
        })
@Import(RecordingDispatcherConfig.class)
class WebConsoleTest {
    static final String TOKEN = "console-secret";
    static final String PULL_TOPIC = "console.pull";
    /** A pull topic of the dead letters the page deletes. */
    static final String DEAD_TOPIC = "console.dead";
    /** A pull topic of one dead letter, looked at on a narrow screen. */
    static final String NARROW_TOPIC = "console.narrow";
    /** A push topic of jobs run now and deleted from the list. */
    static final String BULK_TOPIC = "console.bulk";
    /** A pull topic of dead letters requeued from the list. */
    static final String BULK_DEAD_TOPIC = "console.bulkdead";
    /** An HTTP topic whose callbacks are all refused. */
    static final String REFUSED_TOPIC = "console-refused";

    static final ServiceStores STORES = ServiceStores.redisAndJournal("console");
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Path SCREENSHOTS = Path.of("target", "screenshots");

    private static WebDriver browser;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        STORES.register(registry);
    }

    @LocalServerPort
    int port;

    @Autowired
    RecordingDispatcher recorder;

    @BeforeAll
    static void startBrowser() {
        browser = Chromium.start();
    }

    @AfterAll
    static void stopBrowser() {
        if (browser != null) {
            browser.quit();
        }
    }

    @Test
    void an_operator_pushes_looks_up_deletes_and_requeues_through_the_pages_after_giving_the_token() {
        open("#/jobs");
        WebDriverWait wait = waiter();
        wait.until(d -> !text("role").equals("…"));
        assertThat(text("role"))
                .as("the HA role shown")
                .isEqualTo(new Api(port).get("/stats").data().path("role").asText());

        // the job list needs the token, so the page asks for it
        WebElement dialog = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("token-dialog")));
        assertThat(dialog.getText()).contains("This service needs a token");
        screenshot("token-prompt");
        fill("token-input", TOKEN);
        click("token-save");
        wait.until(d -> !d.findElement(By.id("token-dialog")).isDisplayed());

        // push: the answer is beside the form
        fill("push-topic", "console.orders");
        fill("push-body", "close order 42");
        fill("push-delay", "1500");
        click("push-submit");
        wait.until(d -> text("push-answer").startsWith("pushed "));
        String pushed = text("push-answer").split(" ")[1];
        assertThat(authorized().get("/jobs/" + pushed).status())
                .as("the job the page says it pushed")
                .isEqualTo(200);
        assertBeside("push-answer", "push-section");

        // counted, then delivered at its due time, and counted as such
        open("#/");
        wait.until(d -> rowValue("by-status", "DELAY") >= 1 || rowValue("by-status", "FINISHED") >= 1);
        await("the pushed job is delivered").atMost(WAIT).until(() -> !recorder.deliveriesOf(Set.of(pushed))
                .isEmpty());
        wait.until(d -> rowValue("by-status", "FINISHED") >= 1);
        wait.until(d -> rowValue("lateness", "handed over") >= 1);
        // the journal's lag and backlog, as /stats reports them
        wait.until(d -> rowText("journal", "lag (ms)") != null);
        assertThat(rowText("journal", "lag (ms)")).as("journal lag shown").matches("\\d+");
        assertThat(rowText("journal", "queued rows"))
                .as("journal backlog shown")
                .matches("\\d+");
        assertThat(rowText("journal", "mode"))
                .isEqualTo(new Api(port)
                        .get("/stats")
                        .data()
                        .path("journal")
                        .path("mode")
                        .asText())
                .isEqualTo("SYNC");
        // the charts of the last hour, drawn from the sampled meters: the push and the hand-over are in them
        for (String chart : List.of("chart-throughput", "chart-lateness", "chart-pending", "chart-lag", "chart-dead")) {
            wait.until(d -> chartPoints(chart) >= 2);
            assertThat(browser.findElements(By.cssSelector("#" + chart + " canvas")))
                    .as("%s drawn", chart)
                    .isNotEmpty();
        }
        wait.until(d -> chartMax("pushesPerSecond") > 0 && chartMax("handOversPerSecond") > 0);
        // some traffic for the charts to show: 300 jobs due over three seconds
        List<Map<String, Object>> load = new java.util.ArrayList<>();
        for (int i = 0; i < 300; i++) {
            load.add(Map.of("topic", "console.load", "body", "load " + i, "delay", i * 10));
        }
        assertThat(authorized().send("POST", "/push/batch", Api.toJson(load)).status())
                .isEqualTo(200);
        wait.until(d -> chartMax("handOversPerSecond") >= 20);
        wait.until(d -> rowValue("by-status", "FINISHED") >= 301);

        // "Jobs by status" counts pending jobs in both tiers, and says where each count comes from
        String far = push("console.far", "due next week", Duration.ofDays(7).toMillis(), null);
        // the journal tier is counted in the background, again once the last count is a minute old (TierLoader's
        // COUNT_MAX_AGE_MS, with the default horizon): an earlier look at /stats (this test's or another's, on the
        // class's one service) may have counted it just before the push
        new WebDriverWait(browser, Duration.ofSeconds(90))
                .pollingEvery(Duration.ofMillis(500))
                .until(d ->
                        String.valueOf(rowSource("by-status", "DELAY")).matches("Redis \\d+ \\+ journal tier [1-9].*"));
        String source = rowSource("by-status", "DELAY");
        long redisDelay = Long.parseLong(source.replaceAll("^Redis (\\d+) .*", "$1"));
        long farDelay = Long.parseLong(source.replaceAll("^.*journal tier (\\d+).*", "$1"));
        assertThat(rowValue("by-status", "DELAY")).as(source).isEqualTo(redisDelay + farDelay);
        assertThat(rowSource("by-status", "FINISHED")).startsWith("Redis, kept");
        screenshot("overview");

        // the job browser, reached by its address with the filter in it: a far job of the journal tier is listed
        open("#/jobs?status=DELAY&topic=console.far");
        WebElement row = wait.until(d -> d.findElement(By.cssSelector("#browse-jobs tr[data-id='" + far + "']")));
        assertThat(row.getText()).contains("console.far", "journal");
        assertThat(browser.findElement(By.id("browse-topic")).getAttribute("value"))
                .isEqualTo("console.far");
        screenshot("jobs");
        // a click opens the job's own page, whose address can be shared
        browser.findElement(By.cssSelector("#browse-jobs tr[data-id='" + far + "'] td.tier-journal"))
                .click();
        wait.until(d -> d.getCurrentUrl().endsWith("#/job/" + far));
        wait.until(d -> text("job-fields").contains(far));
        assertThat(text("job-tier")).contains("journal");
        assertThat(text("job-history")).contains("CREATED");
        assertThat(fieldOf("ttr (ms)")).isEqualTo("30000");
        assertThat(fieldOf("maxAttempts")).matches("\\d+");
        // back to the list as it was, filter and all
        browser.navigate().back();
        wait.until(d -> isShown("page-jobs")
                && !d.findElements(By.cssSelector("#browse-jobs tr[data-id='" + far + "']"))
                        .isEmpty());
        assertThat(browser.findElement(By.id("browse-topic")).getAttribute("value"))
                .isEqualTo("console.far");
        browser.navigate().forward();
        wait.until(d -> isShown("page-job") && text("job-fields").contains(far));

        // newest first, over every topic, from the form: the address follows, and the far job pushed last comes first
        open("#/jobs");
        fill("browse-topic", "");
        select("browse-order", "newest");
        click("browse-submit");
        wait.until(d -> d.getCurrentUrl().contains("order=newest"));
        wait.until(d -> far.equals(
                browser.findElement(By.cssSelector("#browse-jobs tbody tr")).getAttribute("data-id")));

        // the delivered one, by its address, with its full record and history
        open("#/job/" + pushed);
        wait.until(d -> text("job-fields").contains("FINISHED"));
        assertThat(text("job-fields")).contains(pushed, "console.orders", "close order 42");
        assertThat(text("job-history")).contains("CREATED").contains("FINISHED");
        assertThat(browser.findElement(By.cssSelector("#job-fields tr[data-field='topic'] a"))
                        .getAttribute("href"))
                .as("the topic opens its jobs in the browser")
                .endsWith("#/jobs?status=FINISHED&topic=console.orders");
        assertThat(browser.findElement(By.id("job-run-now")).isEnabled())
                .as("a finished job has nothing to run")
                .isFalse();
        screenshot("job");

        // delete one that is still waiting, from its page: the answer beside the buttons
        String later = push("console.orders", "close order 43", 600_000, null);
        open("#/job/" + later);
        wait.until(d -> text("job-fields").contains(later));
        click("job-delete");
        wait.until(d -> text("job-answer").equals("delete: deleted"));
        wait.until(d -> text("job-fields").contains("DELETED"));
        assertBeside("job-answer", "job-section");
        assertThat(authorized().get("/jobs/" + later).data().path("status").asText())
                .isEqualTo("DELETED");

        // run one now from its page: handed over at once
        String soon = push("console.orders", "close order 44", 600_000, null);
        open("#/job/" + soon);
        wait.until(d -> text("job-fields").contains(soon));
        click("job-run-now");
        wait.until(d -> text("job-answer").startsWith("run now: due now"));
        await("the job run now is delivered").atMost(WAIT).until(() -> !recorder.deliveriesOf(Set.of(soon))
                .isEmpty());

        // a dead letter: reserved once and left unfinished past its ttr, with one attempt allowed
        String dead = deadLetter(PULL_TOPIC, "never finished");

        // the dead letters page lists the topics that have some
        open("#/dead");
        wait.until(d -> !d.findElements(By.cssSelector("#dead-topic-list tr[data-topic='" + PULL_TOPIC + "']"))
                .isEmpty());

        // the topics with their counts; the dead letters of one are a click away, each with its last error
        open("#/topics");
        wait.until(d -> topicCell("console.far", 1).equals("1"));
        wait.until(d -> topicCell(PULL_TOPIC, 4).equals("1"));
        assertThat(browser.findElement(By.cssSelector("#topics tfoot tr.total")).getText())
                .as("the totals of every topic")
                .startsWith("all topics");
        screenshot("topics");
        browser.findElement(By.cssSelector("#topics tr[data-topic='" + PULL_TOPIC + "'] .dead-open"))
                .click();
        wait.until(d -> d.getCurrentUrl().endsWith("#/dead/" + PULL_TOPIC));
        wait.until(d -> text("dead-total").startsWith("1 dead job of"));
        assertThat(text("dead-jobs")).contains(dead, "never finished");
        Api.Response journaled = authorized().send("GET", "/console/jobs?status=DEAD&topic=" + PULL_TOPIC, null);
        assertThat(journaled.status()).as("%s", journaled).isEqualTo(200);
        assertThat(journaled.data().path("jobs").path(0).path("lastError").asText())
                .as("the last error: why its one attempt failed, not merely that it died: %s", journaled)
                .isEqualTo("reservation expired");
        wait.until(d -> text("dead-jobs").contains("reservation expired"));
        screenshot("dead");
        browser.findElement(By.cssSelector(".dead-requeue-one[data-id='" + dead + "']"))
                .click();
        wait.until(d -> text("dead-answer").contains("1 requeued"));
        wait.until(d -> text("dead-total").startsWith("0 dead jobs"));
        assertThat(authorized().get("/jobs/" + dead).data().path("status").asText())
                .as("the requeued job")
                .isIn("DELAY", "READY");

        // the cluster page: this standalone instance owns every shard
        open("#/cluster");
        int shards = new Api(port).get("/stats").data().path("shards").size();
        wait.until(
                d -> d.findElements(By.cssSelector("#cluster-shards tbody tr")).size() == shards);
        assertThat(text("cluster-mode")).startsWith("standalone");
        assertThat(text("cluster-shards")).contains("shard 0", "shard " + (shards - 1));
        assertThat(text("cluster-instances")).contains("standalone", "all");
        screenshot("cluster");
    }

    @Test
    void an_operator_deletes_one_chosen_and_all_dead_letters_of_a_topic_through_the_page() {
        // dead letters: each reserved once and left unfinished past its ttr, with one attempt allowed
        List<String> dead = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            dead.add(push(DEAD_TOPIC, "dead letter " + i, 0, 1));
        }
        Set<String> reserved = new HashSet<>();
        await("every job is reserved").atMost(WAIT).until(() -> {
            Api.Response r = authorized().send("GET", "/get/" + DEAD_TOPIC + "?timeout=1000", null);
            if (r.status() == 200 && !r.data().isNull()) {
                reserved.add(r.data().path("id").asText());
            }
            return reserved.containsAll(dead);
        });
        await("every unfinished job is dead").atMost(WAIT).until(() -> dead.stream()
                .allMatch(id -> "DEAD"
                        .equals(authorized()
                                .get("/jobs/" + id)
                                .data()
                                .path("status")
                                .asText())));

        // an attacker without the token deletes nothing
        assertThat(new Api(port).post("/dead/" + DEAD_TOPIC + "/delete", null).status())
                .isEqualTo(401);
        assertThat(new Api(port).delete("/jobs/" + dead.get(0)).status()).isEqualTo(401);

        WebDriverWait wait = openDeadLetters(DEAD_TOPIC, 4);
        assertThat(text("dead-total")).startsWith("4 dead jobs");

        // one, from its row
        browser.findElement(By.cssSelector(".dead-delete-one[data-id='" + dead.get(0) + "']"))
                .click();
        wait.until(d -> text("dead-answer").contains("1 deleted"));
        wait.until(d -> text("dead-total").startsWith("3 dead jobs"));

        // the ones ticked, once confirmed
        for (String id : dead.subList(1, 3)) {
            browser.findElement(By.cssSelector(".dead-pick[value='" + id + "']"))
                    .click();
        }
        click("dead-delete-chosen");
        assertThat(confirmShown(wait)).isEqualTo("Delete 2 dead letters?");
        click("confirm-ok");
        wait.until(d -> text("dead-answer").contains("2 deleted"));
        wait.until(d -> text("dead-total").startsWith("1 dead job of"));

        // all the topic has left, once confirmed
        click("dead-delete-all");
        assertThat(confirmShown(wait)).isEqualTo("Delete 1 dead job of " + DEAD_TOPIC + "?");
        click("confirm-ok");
        wait.until(d -> text("dead-answer").contains("1 deleted"));
        wait.until(d -> text("dead-total").startsWith("0 dead jobs"));
        for (String id : dead) {
            assertThat(authorized().get("/jobs/" + id).data().path("status").asText())
                    .as(id)
                    .isEqualTo("DELETED");
            assertThat(STORES.journal().queryStrings("SELECT status FROM delay_queue_job WHERE id = '" + id + "'"))
                    .as("%s in the journal", id)
                    .containsExactly("DELETED");
        }
        open("#/topics");
        wait.until(d -> topicCell(DEAD_TOPIC, 4).equals("0") || !topicListed(DEAD_TOPIC));
        // the tab forgets the token, so that a test after this one is asked for it as a new visitor is
        ((JavascriptExecutor) browser).executeScript("sessionStorage.clear()");
    }

    @Test
    void a_dead_letter_shows_the_error_of_its_last_attempt_in_the_api_and_on_the_page() {
        // every callback refused, three attempts allowed: the third failure is the one it died of
        String url = "http://127.0.0.1:" + FreePorts.free() + "/refused";
        Api.Response pushed = authorized()
                .send(
                        "POST",
                        "/push",
                        Api.toJson(Map.of(
                                "topic",
                                REFUSED_TOPIC,
                                "body",
                                "refused thrice",
                                "delay",
                                0,
                                "url",
                                url,
                                "maxAttempts",
                                3)));
        assertThat(pushed.status()).as("push: %s", pushed).isEqualTo(200);
        String id = pushed.data().asText();
        await("the job is dead").atMost(WAIT).until(() -> "DEAD"
                .equals(authorized().get("/jobs/" + id).data().path("status").asText()));
        awaitJournaledDead(id);

        // the list answers why each died, at once
        Api.Response dead = authorized().get("/dead/" + REFUSED_TOPIC);
        assertThat(dead.status()).as("%s", dead).isEqualTo(200);
        assertThat(dead.data().path("lastErrors").path(id).asText())
                .as("GET /dead: %s", dead)
                .startsWith("attempt 3: ")
                .contains("Connection refused");
        Api.Response journaled = authorized().get("/console/jobs?status=DEAD&topic=" + REFUSED_TOPIC);
        assertThat(journaled.data().path("jobs").path(0).path("lastError").asText())
                .as("the job browser: %s", journaled)
                .isEqualTo(dead.data().path("lastErrors").path(id).asText());

        openDeadLetters(REFUSED_TOPIC, 1);
        assertThat(text("dead-jobs")).contains(id);
        assertThat(text("dead-jobs")).contains("attempt 3: ").doesNotContain("attempt 2: ");
        ((JavascriptExecutor) browser).executeScript("sessionStorage.clear()");
    }

    @Test
    void the_page_counts_in_words_fits_a_narrow_screen_and_names_a_standalone_instance_once() {
        // one dead letter and one job in the browser: "1 dead job", "1 job"
        String dead = deadLetter(NARROW_TOPIC, "dies alone with a long body that should wrap or scroll in its own box");
        awaitJournaledDead(dead);
        assertThat(authorized().get("/dead/" + NARROW_TOPIC).message()).isEqualTo("1 dead job, 1 listed");
        assertThat(authorized()
                        .get("/console/jobs?status=DEAD&topic=" + NARROW_TOPIC)
                        .message())
                .isEqualTo("1 job");

        browser.manage().window().setSize(new Dimension(420, 900));
        try {
            WebDriverWait wait = openDeadLetters(NARROW_TOPIC, 1);
            assertThat(text("dead-total")).isEqualTo("1 dead job of " + NARROW_TOPIC);

            assertNoSidewaysScroll("the dead letters");

            // every page filled: the browser's rows, a job's history, the cluster's shards, the overview
            open("#/jobs?status=DEAD&topic=" + NARROW_TOPIC);
            wait.until(d -> !d.findElements(By.cssSelector("#browse-jobs tr[data-id='" + dead + "']"))
                    .isEmpty());
            assertNoSidewaysScroll("the job browser");
            open("#/job/" + dead);
            wait.until(d -> text("job-fields").contains(dead));
            assertNoSidewaysScroll("the job's page");
            screenshot("narrow");
            open("#/cluster");
            wait.until(d ->
                    !d.findElements(By.cssSelector("#cluster-shards tbody tr")).isEmpty());
            assertNoSidewaysScroll("the cluster");
            // standalone: the mode, without naming the one instance twice ("this instance: this instance")
            wait.until(d -> !text("cluster-mode").isEmpty());
            assertThat(text("cluster-mode")).isEqualTo("standalone");
            open("#/");
            wait.until(d -> chartPoints("chart-dead") >= 1);
            assertNoSidewaysScroll("the overview");
        } finally {
            browser.manage().window().setSize(new Dimension(1360, 1500));
            ((JavascriptExecutor) browser).executeScript("sessionStorage.clear()");
        }
    }

    /** No sideways scroll: what is wider than the window scrolls within its own box. */
    private static void assertNoSidewaysScroll(String page) {
        Object overflow = ((JavascriptExecutor) browser)
                .executeScript("const root = document.documentElement;"
                        + " const wide = [...document.querySelectorAll('body *')]"
                        + ".filter((e) => e.getBoundingClientRect().right > root.clientWidth + 0.5)"
                        + ".map((e) => e.tagName + '#' + e.id + '.' + e.className).slice(0, 40);"
                        + " return root.scrollWidth + ' > ' + root.clientWidth + ': ' + wide.join(' ');");
        Object widths = ((JavascriptExecutor) browser)
                .executeScript("return document.documentElement.scrollWidth - document.documentElement.clientWidth;");
        assertThat(((Number) widths).longValue())
                .as("%s scrolls sideways: %s", page, overflow)
                .isLessThanOrEqualTo(0);
    }

    /** Opens the topics page and, once it counts {@code dead} of {@code topic}, the topic's dead letters by address. */
    private WebDriverWait openDeadLetters(String topic, int dead) {
        open("#/topics");
        WebDriverWait wait = waiter();
        wait.until(d -> topicCell(topic, 4).equals(String.valueOf(dead)));
        open("#/dead/" + topic);
        giveTokenIfAsked(wait);
        wait.until(d -> text("dead-total").startsWith(dead + " dead job"));
        return wait;
    }

    /** The page asks for the token at the first call that needs it, unless an earlier test of this tab gave it. */
    private static void giveTokenIfAsked(WebDriverWait wait) {
        wait.until(d -> d.findElement(By.id("token-dialog")).isDisplayed()
                || !text("dead-total").isEmpty());
        if (browser.findElement(By.id("token-dialog")).isDisplayed()) {
            fill("token-input", TOKEN);
            click("token-save");
        }
    }

    private static boolean topicListed(String topic) {
        return !browser.findElements(By.cssSelector("#topics tr[data-topic='" + topic + "']"))
                .isEmpty();
    }

    @Test
    void the_console_reads_are_open_but_the_job_browser_needs_the_token_and_bad_input_is_named() {
        Api open = new Api(port);
        for (String read : List.of("/console/metrics", "/console/topics", "/console/cluster")) {
            assertThat(open.get(read).status()).as("%s without the token", read).isEqualTo(200);
        }
        assertThat(open.get("/console/jobs?status=DELAY").status()).isEqualTo(401);

        Map<String, String> bad = new LinkedHashMap<>();
        bad.put("/console/jobs", "status");
        bad.put("/console/jobs?status=LATE", "status");
        bad.put("/console/jobs?status=DELAY&topic=no%20spaces", "topic");
        bad.put("/console/jobs?status=DELAY&order=oldest", "order");
        bad.put("/console/jobs?status=DELAY&after=yesterday", "after");
        bad.put("/console/jobs?status=DELAY&limit=0", "limit");
        bad.put("/console/jobs?status=DELAY&limit=201", "limit");
        bad.forEach((call, field) -> {
            Api.Response r = authorized().get(call);
            assertThat(r.status()).as("%s: %s", call, r).isEqualTo(400);
            assertThat(r.message()).as(call).startsWith(field + " ");
        });

        Api.Response page = authorized().get("/console/jobs?status=FINISHED&order=newest&limit=1");
        assertThat(page.status()).as("%s", page).isEqualTo(200);
        assertThat(page.data().has("jobs")).isTrue();
    }

    @Test
    void a_job_looked_up_by_id_needs_the_token_as_the_job_browser_does() {
        String id = push("console.lookup", "close order 7", 3_600_000, null);

        Api.Response anonymous = new Api(port).get("/jobs/" + id);
        assertThat(anonymous.status()).as("%s", anonymous).isEqualTo(401);
        assertThat(anonymous.raw()).doesNotContain("close order 7");
        Api.Response withToken = authorized().get("/jobs/" + id);
        assertThat(withToken.status()).as("%s", withToken).isEqualTo(200);
        assertThat(withToken.data().path("job").path("body").asText()).isEqualTo("close order 7");
    }

    @Test
    void an_error_of_the_api_is_shown_beside_the_control_that_caused_it() {
        open("#/");
        // the calls need the token: given as the page keeps it, and taken back after, whichever test runs first
        JavascriptExecutor page = (JavascriptExecutor) browser;
        page.executeScript("sessionStorage.setItem('delay-queue.token', arguments[0])", TOKEN);
        try {
            open("#/jobs");
            WebDriverWait wait = waiter();
            // a look-up of an unknown id: the answer beside the look-up form, nothing else shown
            fill("lookup-id", "no-such-job");
            click("lookup-submit");
            wait.until(d -> text("lookup-answer").startsWith("404"));
            assertThat(text("lookup-answer")).isEqualTo("404: job no-such-job not found");
            assertBeside("lookup-answer", "lookup-section");
            assertThat(browser.findElement(By.id("message")).isDisplayed())
                    .as("no banner at the top")
                    .isFalse();

            // a push with a delay over the limit, from the form at the bottom: the answer under the form
            fill("push-topic", "console.orders");
            fill("push-body", "much too late");
            fill("push-delay", "99999999999999");
            click("push-submit");
            wait.until(d -> text("push-answer").startsWith("400"));
            assertThat(text("push-answer")).startsWith("400: delay must be at most");
            assertBeside("push-answer", "push-section");

            // an unknown job by its address: the answer on its page, and its actions disabled
            open("#/job/no-such-job");
            wait.until(d -> text("job-answer").startsWith("404"));
            assertThat(browser.findElement(By.id("job")).isDisplayed()).isFalse();
            assertThat(browser.findElement(By.id("job-run-now")).isEnabled()).isFalse();
        } finally {
            page.executeScript("sessionStorage.removeItem('delay-queue.token')");
        }
    }

    @Test
    void run_now_is_token_protected_refused_cross_site_and_names_what_it_refuses() {
        String waiting = push("console.runnow", "in an hour", 3_600_000, null);
        Api open = new Api(port);
        assertThat(open.post("/jobs/" + waiting + "/run-now", null).status())
                .as("without the token")
                .isEqualTo(401);
        Api.Response crossSite =
                authorized().withHeader("Sec-Fetch-Site", "cross-site").post("/jobs/" + waiting + "/run-now", null);
        assertThat(crossSite.status())
                .as("another site's request: %s", crossSite)
                .isEqualTo(403);
        assertThat(authorized()
                        .get("/jobs/" + waiting)
                        .data()
                        .path("job")
                        .path("executeAt")
                        .asLong())
                .as("refused: its due time unchanged")
                .isGreaterThan(System.currentTimeMillis() + 3_000_000);

        Api.Response unknown = authorized().post("/jobs/no-such-job/run-now", null);
        assertThat(unknown.status()).as("%s", unknown).isEqualTo(404);
        assertThat(unknown.message()).isEqualTo("job no-such-job not found");

        Api.Response ran = authorized().post("/jobs/" + waiting + "/run-now", null);
        assertThat(ran.status()).as("%s", ran).isEqualTo(200);
        assertThat(ran.message()).isEqualTo("due now");
        await("the job run now is delivered").atMost(WAIT).until(() -> !recorder.deliveriesOf(Set.of(waiting))
                .isEmpty());
        await("its DUE_NOW is journaled").atMost(WAIT).until(() -> authorized()
                .get("/jobs/" + waiting)
                .data()
                .path("history")
                .toString()
                .contains("DUE_NOW"));

        Api.Response again = authorized().post("/jobs/" + waiting + "/run-now", null);
        assertThat(again.status()).as("%s", again).isEqualTo(409);
        assertThat(again.message()).startsWith("job " + waiting + " is ").contains("only a DELAY job can be run now");
    }

    @Test
    void an_operator_acts_on_jobs_chosen_in_the_list_once_the_confirmation_says_how_many() {
        List<String> waiting = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            waiting.add(push(BULK_TOPIC, "bulk " + i, 3_600_000, null));
        }
        List<String> dead =
                List.of(deadLetter(BULK_DEAD_TOPIC, "bulk dead 0"), deadLetter(BULK_DEAD_TOPIC, "bulk dead 1"));
        dead.forEach(WebConsoleTest::awaitJournaledDead);
        JavascriptExecutor page = (JavascriptExecutor) browser;
        open("#/");
        page.executeScript("sessionStorage.setItem('delay-queue.token', arguments[0])", TOKEN);
        try {
            open("#/jobs?status=DELAY&topic=" + BULK_TOPIC + "&order=newest");
            WebDriverWait wait = waiter();
            wait.until(d ->
                    d.findElements(By.cssSelector("#browse-jobs .job-pick")).size() == 3);

            // two chosen, run now once confirmed
            pick(waiting.get(0));
            pick(waiting.get(1));
            assertThat(text("browse-chosen")).isEqualTo("2 chosen");
            click("browse-run-now");
            assertThat(confirmShown(wait)).isEqualTo("Run 2 jobs now?");
            screenshot("confirm");
            click("confirm-ok");
            wait.until(d -> text("browse-answer").equals("2 run now"));
            assertBeside("browse-answer", "browser");
            await("the two run now are delivered")
                    .atMost(WAIT)
                    .until(() -> recorder.deliveriesOf(Set.copyOf(waiting.subList(0, 2)))
                                    .size()
                            == 2);
            assertThat(recorder.deliveriesOf(Set.of(waiting.get(2))))
                    .as("the one not chosen")
                    .isEmpty();

            // the one left (the list read again once the journal has the two handed over): a delete asked and
            // cancelled does nothing; confirmed, deletes it
            for (String id : waiting.subList(0, 2)) {
                await("the journal has " + id + " handed over")
                        .atMost(WAIT)
                        .until(() -> !authorized()
                                        .get("/console/jobs?status=FINISHED&topic=" + BULK_TOPIC)
                                        .data()
                                        .path("jobs")
                                        .findValuesAsText("id")
                                        .isEmpty()
                                && authorized()
                                        .get("/console/jobs?status=FINISHED&topic=" + BULK_TOPIC)
                                        .data()
                                        .path("jobs")
                                        .findValuesAsText("id")
                                        .contains(id));
            }
            click("browse-submit");
            wait.until(d ->
                    d.findElements(By.cssSelector("#browse-jobs .job-pick")).size() == 1);
            pick(waiting.get(2));
            click("browse-delete");
            assertThat(confirmShown(wait)).isEqualTo("Delete 1 job?");
            click("confirm-cancel");
            wait.until(d -> text("browse-answer").equals("nothing done"));
            assertThat(authorized()
                            .get("/jobs/" + waiting.get(2))
                            .data()
                            .path("status")
                            .asText())
                    .isEqualTo("DELAY");
            click("browse-delete");
            assertThat(confirmShown(wait)).isEqualTo("Delete 1 job?");
            click("confirm-ok");
            wait.until(d -> text("browse-answer").equals("1 deleted"));
            assertThat(authorized()
                            .get("/jobs/" + waiting.get(2))
                            .data()
                            .path("status")
                            .asText())
                    .isEqualTo("DELETED");

            // the dead ones, every one of the page chosen at once, requeued
            open("#/jobs?status=DEAD&topic=" + BULK_DEAD_TOPIC);
            wait.until(d ->
                    d.findElements(By.cssSelector("#browse-jobs .job-pick")).size() == 2);
            click("browse-pick-all");
            assertThat(text("browse-chosen")).isEqualTo("2 chosen");
            assertThat(browser.findElement(By.id("browse-run-now")).isEnabled())
                    .as("dead jobs are requeued, not run")
                    .isFalse();
            click("browse-requeue");
            assertThat(confirmShown(wait)).isEqualTo("Requeue 2 jobs?");
            click("confirm-ok");
            wait.until(d -> text("browse-answer").equals("2 requeued"));
            for (String id : dead) {
                assertThat(authorized().get("/jobs/" + id).data().path("status").asText())
                        .as(id)
                        .isIn("DELAY", "READY", "RESERVED");
            }
        } finally {
            page.executeScript("sessionStorage.removeItem('delay-queue.token')");
        }
    }

    @Test
    void times_are_written_one_way_with_their_zone_local_or_utc_by_a_switch_the_browser_remembers() {
        String id = push("console.times", "at a known time", 7_200_000, null);
        long due = authorized()
                .get("/jobs/" + id)
                .data()
                .path("job")
                .path("executeAt")
                .asLong();
        ChromeDriver chrome = (ChromeDriver) browser;
        chrome.executeCdpCommand("Emulation.setTimezoneOverride", Map.of("timezoneId", "Asia/Kolkata"));
        JavascriptExecutor page = (JavascriptExecutor) browser;
        open("#/");
        page.executeScript("sessionStorage.setItem('delay-queue.token', arguments[0]); localStorage.clear()", TOKEN);
        try {
            open("#/job/" + id);
            WebDriverWait wait = waiter();
            // the operator's zone by default, named
            wait.until(d -> !fieldOf("due").isEmpty());
            assertThat(fieldOf("due")).isEqualTo(written(due, ZoneOffset.ofHoursMinutes(5, 30), "UTC+05:30"));
            wait.until(d -> new Select(d.findElement(By.id("zone")))
                    .getFirstSelectedOption()
                    .getText()
                    .equals("local (UTC+05:30)"));

            // UTC by the switch: the job's page at once, the job browser, the history, the charts' axis
            select("zone", "utc");
            wait.until(d -> fieldOf("due").equals(written(due, ZoneOffset.UTC, "UTC")));
            assertThat(text("job-history")).contains(" UTC").doesNotContain("UTC+05:30");
            open("#/jobs?status=DELAY&topic=console.times");
            wait.until(d -> text("browse-jobs").contains(written(due, ZoneOffset.UTC, "UTC")));

            // remembered by the browser
            browser.navigate().refresh();
            wait.until(d -> text("browse-jobs").contains(id));
            assertThat(text("browse-jobs")).contains(written(due, ZoneOffset.UTC, "UTC"));
            open("#/");
            wait.until(d -> "UTC".equals(browser.findElement(By.id("chart-lag")).getAttribute("data-zone")));
            assertThat(browser.findElement(By.id("chart-lag")).getAttribute("data-axis-label"))
                    .isEqualTo("time (UTC)");
            String ticks = browser.findElement(By.id("chart-lag")).getAttribute("data-ticks");
            assertThat(ticks).as("the axis: the clock of the same format").matches("(\\d\\d:\\d\\d:\\d\\d ?)+");
            select("zone", "local");
            wait.until(d ->
                    "UTC+05:30".equals(browser.findElement(By.id("chart-lag")).getAttribute("data-zone")));
            assertThat(text("charts-note")).contains("times in UTC+05:30");
        } finally {
            page.executeScript("sessionStorage.removeItem('delay-queue.token'); localStorage.clear()");
            chrome.executeCdpCommand("Emulation.setTimezoneOverride", Map.of("timezoneId", ""));
        }
    }

    /** An instant as the console writes it: "2026-11-27 06:42:54.924 UTC". */
    private static String written(long ms, ZoneOffset offset, String zone) {
        return DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS")
                        .format(Instant.ofEpochMilli(ms).atOffset(offset))
                + " " + zone;
    }

    /** The value of a field of the job's page. */
    private static String fieldOf(String label) {
        Object value = ((JavascriptExecutor) browser)
                .executeScript(
                        "const tr = document.querySelector('#job-fields tr[data-field=\"' + arguments[0] + '\"]');"
                                + " return tr ? tr.cells[1].textContent : '';",
                        label);
        return String.valueOf(value);
    }

    /** Ticks a job of the job browser's list. */
    private static void pick(String id) {
        browser.findElement(By.cssSelector(".job-pick[value='" + id + "']")).click();
    }

    /** Waits for the confirmation dialog; its title (which says how many). */
    private static String confirmShown(WebDriverWait wait) {
        wait.until(d -> d.findElement(By.id("confirm-dialog")).isDisplayed());
        return text("confirm-title");
    }

    /** The answer is shown, inside the section of the control that caused it, within the window. */
    private static void assertBeside(String answer, String section) {
        WebElement element = browser.findElement(By.id(answer));
        assertThat(element.isDisplayed()).as("%s shown", answer).isTrue();
        Object inside = ((JavascriptExecutor) browser)
                .executeScript(
                        "const a = document.getElementById(arguments[0]);"
                                + " a.scrollIntoView({block: 'nearest'});"
                                + " return document.getElementById(arguments[1]).contains(a);",
                        answer,
                        section);
        assertThat(inside).as("%s inside #%s", answer, section).isEqualTo(true);
    }

    /** Opens a page of the console by its address (a fragment navigation when the console is open already). */
    private void open(String hash) {
        String url = "http://127.0.0.1:" + port + "/" + hash;
        if (url.equals(browser.getCurrentUrl())) {
            browser.navigate().refresh();
        } else {
            browser.get(url);
        }
    }

    /** Whether the page of this id is the one shown. */
    private static boolean isShown(String pageId) {
        return browser.findElement(By.id(pageId)).isDisplayed();
    }

    private static WebDriverWait waiter() {
        WebDriverWait wait = new WebDriverWait(browser, WAIT);
        wait.ignoring(StaleElementReferenceException.class);
        return wait;
    }

    /** Pushes over the API with the token; returns the id. */
    private String push(String topic, String body, long delayMs, Integer maxAttempts) {
        Map<String, Object> job = new LinkedHashMap<>();
        job.put("topic", topic);
        job.put("body", body);
        job.put("delay", delayMs);
        if (maxAttempts != null) {
            job.put("maxAttempts", maxAttempts);
            job.put("ttr", 200);
        }
        Api.Response r = authorized().send("POST", "/push", Api.toJson(job));
        assertThat(r.status()).as("push: %s", r).isEqualTo(200);
        return r.data().asText();
    }

    /** A dead letter of a pull topic: reserved once and left unfinished past its ttr, with one attempt allowed. */
    private String deadLetter(String topic, String body) {
        String id = push(topic, body, 0, 1);
        await("the pull job is reserved").atMost(WAIT).until(() -> {
            Api.Response r = authorized().send("GET", "/get/" + topic + "?timeout=1000", null);
            return r.status() == 200 && id.equals(r.data().path("id").asText());
        });
        await("the unfinished job is dead").atMost(WAIT).until(() -> "DEAD"
                .equals(authorized().get("/jobs/" + id).data().path("status").asText()));
        return id;
    }

    /** Waits for the journal to have the job {@code DEAD} (it is written within the journal's lag). */
    private static void awaitJournaledDead(String id) {
        await("the death of " + id + " is journaled").atMost(WAIT).until(() -> STORES.journal()
                .queryStrings("SELECT status FROM delay_queue_job WHERE id = '" + id + "'")
                .contains("DEAD"));
    }

    private Api authorized() {
        return new Api(port).withHeader("Authorization", "Bearer " + TOKEN);
    }

    private static String text(String id) {
        return browser.findElement(By.id(id)).getText().trim();
    }

    private static void fill(String id, String value) {
        WebElement input = browser.findElement(By.id(id));
        input.clear();
        input.sendKeys(value);
    }

    private static void click(String id) {
        browser.findElement(By.id(id)).click();
    }

    private static void select(String id, String value) {
        new Select(browser.findElement(By.id(id))).selectByValue(value);
    }

    /** The points a chart of the console drew (its first series), as the page notes them. */
    private static long chartPoints(String id) {
        String points = browser.findElement(By.id(id)).getAttribute("data-points");
        return points == null ? 0 : Long.parseLong(points);
    }

    /** The largest value of a series of the console's samples, read as the page reads them. */
    private double chartMax(String series) {
        double max = 0;
        for (var v : new Api(port).get("/console/metrics").data().path("series").path(series)) {
            max = Math.max(max, v.asDouble(0));
        }
        return max;
    }

    /** A cell of a topic's row: 1 delayed, 2 ready, 3 reserved, 4 dead; "" without the row. */
    private static String topicCell(String topic, int column) {
        Object value = ((JavascriptExecutor) browser)
                .executeScript(
                        "const tr = document.querySelector('#topics tr[data-topic=\"' + arguments[0] + '\"]');"
                                + " return tr ? tr.cells[arguments[1]].textContent : '';",
                        topic,
                        column);
        return String.valueOf(value);
    }

    /** The text in the row of a two-column overview table whose first cell is {@code label}; null without one. */
    private static String rowText(String table, String label) {
        Object value = ((JavascriptExecutor) browser)
                .executeScript(
                        "for (const tr of document.querySelectorAll('#' + arguments[0] + ' tr')) {"
                                + " if (tr.cells.length >= 2 && tr.cells[0].textContent === arguments[1])"
                                + " return tr.cells[1].textContent; }"
                                + " return null;",
                        table,
                        label);
        return value == null ? null : String.valueOf(value);
    }

    /** The third cell (where the count comes from) of the row of an overview table; null without one. */
    private static String rowSource(String table, String label) {
        Object value = ((JavascriptExecutor) browser)
                .executeScript(
                        "for (const tr of document.querySelectorAll('#' + arguments[0] + ' tr')) {"
                                + " if (tr.cells.length >= 3 && tr.cells[0].textContent === arguments[1])"
                                + " return tr.cells[2].textContent; }"
                                + " return null;",
                        table,
                        label);
        return value == null ? null : String.valueOf(value);
    }

    /** The number in the row of a two-column overview table whose first cell is {@code label}; 0 without one. */
    private static long rowValue(String table, String label) {
        // read in one script: the page rebuilds its overview tables every refresh
        Object value = ((JavascriptExecutor) browser)
                .executeScript(
                        "for (const tr of document.querySelectorAll('#' + arguments[0] + ' tr')) {"
                                + " if (tr.cells.length >= 2 && tr.cells[0].textContent === arguments[1])"
                                + " return tr.cells[1].textContent; }"
                                + " return '0';",
                        table,
                        label);
        return Long.parseLong(String.valueOf(value));
    }

    private static void screenshot(String name) {
        try {
            Files.createDirectories(SCREENSHOTS);
            Path shot =
                    ((ChromeDriver) browser).getScreenshotAs(OutputType.FILE).toPath();
            Files.copy(shot, SCREENSHOTS.resolve("console-" + name + ".png"), StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
