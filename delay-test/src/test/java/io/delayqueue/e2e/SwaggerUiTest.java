package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayqueue.e2e.support.Chromium;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.ServiceTest;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Swagger UI, in headless Chromium as a reader opens it, shows what the description says (issue 28): a placeholder
 * of a description whole ({@code delay.dispatch.topics.<topic>=pull}, which Markdown took for an HTML tag and
 * dropped), and under each status an example of that status (the same 400 stood under 401, 413, 415, 503 and 504).
 */
@ServiceTest(properties = "delay.security.token=" + SwaggerUiTest.TOKEN)
class SwaggerUiTest {
    static final String TOKEN = "ui-secret";
    static final ServiceStores STORES = ServiceStores.redisAndJournal("swaggerui");
    private static WebDriver browser;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        STORES.register(registry);
    }

    @LocalServerPort
    int port;

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
    void swagger_ui_shows_placeholders_whole_and_each_status_with_its_own_example() {
        browser.get("http://127.0.0.1:" + port + "/swagger-ui/index.html");
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(30));
        // GET /get/{topic}'s block, found by its path (its element id follows the operationId)
        By block =
                By.xpath("//div[contains(concat(' ', @class, ' '), ' opblock ') and .//*[@data-path='/get/{topic}']]");
        WebElement reserve = wait.until(ExpectedConditions.visibilityOfElementLocated(block));
        reserve.findElement(By.cssSelector(".opblock-summary-control")).click();
        wait.until(d -> !d.findElement(block)
                .findElements(By.cssSelector(".parameters-col_description"))
                .isEmpty());

        String parameters = reserve.findElement(By.cssSelector(".parameters")).getText();
        assertThat(parameters)
                .as("the topic parameter's description as Swagger UI shows it")
                .contains("delay.dispatch.topics.<topic>=pull");

        assertThat(example(reserve, "400")).contains("\"code\": 400");
        assertThat(example(reserve, "401"))
                .as("the 401's example")
                .contains("\"code\": 401")
                .contains("token is missing or wrong")
                .doesNotContain("topic must match");
        assertThat(example(reserve, "415")).contains("\"code\": 415").contains("application/json");
        assertThat(example(reserve, "503")).contains("\"code\": 503").contains("Redis");
    }

    /** The example Swagger UI shows under {@code code} of the expanded operation. */
    private static String example(WebElement operation, String code) {
        WebElement row = operation.findElement(By.cssSelector("tr.response[data-code='" + code + "']"));
        return row.findElement(By.cssSelector(".response-col_description")).getText();
    }
}
