package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.ServiceTest;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/**
 * {@code /v3/api-docs} describes every endpoint the service's controllers map, as the running service maps them:
 * its parameters, the push bodies, the error envelope and the token. It stays readable when a token is set.
 */
@ServiceTest(properties = "delay.security.token=" + ApiDocumentationTest.TOKEN)
class ApiDocumentationTest {
    static final String TOKEN = "docs-secret";
    static final ServiceStores STORES = ServiceStores.redisAndJournal("apidocs");

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        STORES.register(registry);
    }

    @LocalServerPort
    int port;

    @Autowired
    @Qualifier("requestMappingHandlerMapping")
    RequestMappingHandlerMapping mappings;

    /** One endpoint as a controller of the service maps it. */
    private record Endpoint(String path, String method, List<String> parameters) {}

    @Test
    void every_endpoint_the_controllers_map_is_described_with_its_parameters_and_the_error_envelope() {
        List<Endpoint> endpoints = controllerEndpoints();
        assertThat(endpoints)
                .as("the controllers' endpoints (the test must see them to check anything)")
                .extracting(Endpoint::path)
                .contains(
                        "/push",
                        "/push/batch",
                        "/jobs/{id}",
                        "/get/{topic}",
                        "/jobs/finish",
                        "/dead/{topic}/requeue",
                        "/clearAll");

        Api.Response docs = new Api(port).get("/v3/api-docs");
        assertThat(docs.status())
                .as("GET /v3/api-docs without the token: %s", docs)
                .isEqualTo(200);
        JsonNode paths = docs.json().path("paths");
        for (Endpoint e : endpoints) {
            JsonNode op = paths.path(e.path()).path(e.method());
            assertThat(op.isObject())
                    .as("%s %s is described", e.method(), e.path())
                    .isTrue();
            List<String> described = new ArrayList<>();
            op.path("parameters").forEach(p -> {
                described.add(p.path("name").asText());
                assertThat(p.path("description").asText())
                        .as("%s %s parameter %s has a description", e.method(), e.path(), p.path("name"))
                        .isNotBlank();
            });
            assertThat(described)
                    .as("%s %s parameters", e.method(), e.path())
                    .containsExactlyInAnyOrderElementsOf(e.parameters());
            for (String range : List.of("4XX", "5XX")) {
                assertThat(op.path("responses")
                                .path(range)
                                .path("content")
                                .path("application/json")
                                .path("schema")
                                .path("$ref")
                                .asText())
                        .as("%s %s answers %s in the error envelope", e.method(), e.path(), range)
                        .isEqualTo("#/components/schemas/Error");
            }
            boolean openRead = e.method().equals("get")
                    && (e.path().startsWith("/jobs/")
                            || e.path().equals("/stats")
                            || List.of("/console/metrics", "/console/topics", "/console/cluster")
                                    .contains(e.path()));
            assertThat(op.path("security").toString())
                    .as("%s %s names the token exactly when the token filter asks for it", e.method(), e.path())
                    .isEqualTo(openRead ? "" : "[{\"token\":[]}]");
        }

        assertThat(paths.path("/push")
                        .path("post")
                        .path("requestBody")
                        .path("content")
                        .path("application/json")
                        .path("schema")
                        .path("$ref")
                        .asText())
                .isEqualTo("#/components/schemas/PushRequest");
        assertThat(paths.path("/push/batch")
                        .path("post")
                        .path("requestBody")
                        .path("content")
                        .path("application/json")
                        .path("schema")
                        .path("items")
                        .path("$ref")
                        .asText())
                .isEqualTo("#/components/schemas/PushRequest");
        assertThat(paths.path("/jobs/finish")
                        .path("post")
                        .path("requestBody")
                        .path("content")
                        .path("application/json")
                        .path("schema")
                        .path("items")
                        .path("$ref")
                        .asText())
                .isEqualTo("#/components/schemas/FinishRequest");
        JsonNode finishRequest = docs.json()
                .path("components")
                .path("schemas")
                .path("FinishRequest")
                .path("properties");
        assertThat(finishRequest.has("id") && finishRequest.has("attempts"))
                .as("FinishRequest describes id and attempts: %s", finishRequest)
                .isTrue();
        JsonNode pushRequest = docs.json()
                .path("components")
                .path("schemas")
                .path("PushRequest")
                .path("properties");
        for (String field : List.of("id", "topic", "body", "delay", "executeAt", "ttr", "maxAttempts", "url")) {
            assertThat(pushRequest.has(field))
                    .as("PushRequest describes %s", field)
                    .isTrue();
        }
        assertThat(docs.json()
                        .path("components")
                        .path("securitySchemes")
                        .path("token")
                        .path("scheme")
                        .asText())
                .isEqualTo("bearer");
    }

    @Test
    void swagger_ui_is_served_without_the_token() {
        Api.Response ui = new Api(port).get("/swagger-ui/index.html");
        assertThat(ui.status()).as("Swagger UI: %s", ui).isEqualTo(200);
        assertThat(ui.raw()).contains("swagger-ui");
    }

    private List<Endpoint> controllerEndpoints() {
        List<Endpoint> endpoints = new ArrayList<>();
        mappings.getHandlerMethods().forEach((info, handler) -> {
            if (!handler.getBeanType().getPackageName().equals("io.delayqueue.controller")) {
                return;
            }
            List<String> parameters = new ArrayList<>();
            for (Parameter p : handler.getMethod().getParameters()) {
                RequestParam query = p.getAnnotation(RequestParam.class);
                PathVariable path = p.getAnnotation(PathVariable.class);
                if (query != null) {
                    parameters.add(
                            query.value().isEmpty()
                                    ? query.name().isEmpty() ? p.getName() : query.name()
                                    : query.value());
                } else if (path != null) {
                    parameters.add(
                            path.value().isEmpty() ? path.name().isEmpty() ? p.getName() : path.name() : path.value());
                }
            }
            for (String pattern : info.getPatternValues()) {
                for (RequestMethod method : info.getMethodsCondition().getMethods()) {
                    endpoints.add(new Endpoint(pattern, method.name().toLowerCase(Locale.ROOT), parameters));
                }
            }
        });
        return endpoints;
    }
}
