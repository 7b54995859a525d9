package io.delayqueue.controller;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.http.converter.json.Jackson2ObjectMapperBuilder;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

/**
 * What {@link DirectPushFilter} leaves to the dispatcher, and that it answers refusals as the dispatcher's
 * exception handler would. The pushes themselves are driven through the real service by the e2e tests (every
 * {@code POST /push} there takes this filter).
 */
class DirectPushFilterTest {
    private final ObjectMapper json = Jackson2ObjectMapperBuilder.json().build();
    // no controller: none of these requests may reach it
    private final List<Integer> timed = new CopyOnWriteArrayList<>();
    private final DirectPushFilter filter = new DirectPushFilter(
            null,
            new ApiExceptionHandler(),
            new EnvelopeReturnValueHandler(json),
            (status, nanos) -> timed.add(status),
            null);

    @Test
    void other_methods_and_paths_go_on_to_the_dispatcher() throws Exception {
        for (String[] call : new String[][] {{"GET", "/push"}, {"OPTIONS", "/push"}, {"POST", "/push/batch"}}) {
            MockHttpServletRequest request = new MockHttpServletRequest(call[0], call[1]);
            request.setServletPath(call[1]);
            MockFilterChain chain = new MockFilterChain();
            MockHttpServletResponse response = new MockHttpServletResponse();

            filter.doFilter(request, response, chain);

            assertThat(chain.getRequest())
                    .as("%s %s passed on", call[0], call[1])
                    .isSameAs(request);
            assertThat(response.getContentAsByteArray()).isEmpty();
        }
        assertThat(timed).as("left to the dispatcher's request metrics").isEmpty();
    }

    @Test
    void a_body_that_is_not_json_is_refused_in_the_envelope_without_reaching_the_handler() throws Exception {
        MockHttpServletRequest request = new MockHttpServletRequest("POST", "/push");
        request.setServletPath("/push");
        request.setContentType("text/plain");
        request.setContent("{\"topic\":\"t\"}".getBytes(StandardCharsets.UTF_8));
        MockFilterChain chain = new MockFilterChain();
        MockHttpServletResponse response = new MockHttpServletResponse();

        filter.doFilter(request, response, chain);

        assertThat(chain.getRequest()).as("not passed on").isNull();
        assertThat(response.getStatus()).isEqualTo(415);
        assertThat(response.getContentType()).isEqualTo("application/json");
        assertThat(response.getContentAsString())
                .isEqualTo("{\"success\":false,\"code\":415,\"data\":null,\"message\":\"Content-Type text/plain is"
                        + " not accepted; send the body as application/json\"}");
        assertThat(response.getContentLength()).isEqualTo(response.getContentAsByteArray().length);
        assertThat(timed).as("timed with its status").containsExactly(415);
    }

    @Test
    void without_the_token_where_one_is_set_a_push_is_refused_with_401_before_its_body_is_looked_at() throws Exception {
        DirectPushFilter guarded = new DirectPushFilter(
                null,
                new ApiExceptionHandler(),
                new EnvelopeReturnValueHandler(json),
                (status, nanos) -> timed.add(status),
                new TokenFilter("s3cret"));
        MockHttpServletRequest request = new MockHttpServletRequest("POST", "/push");
        request.setServletPath("/push");
        request.setContentType("text/plain");
        request.addHeader("Authorization", "Bearer wrong");
        MockFilterChain chain = new MockFilterChain();
        MockHttpServletResponse response = new MockHttpServletResponse();

        guarded.doFilter(request, response, chain);

        assertThat(chain.getRequest()).as("not passed on").isNull();
        assertThat(response.getStatus()).isEqualTo(401);
        assertThat(response.getContentAsString()).contains("token is missing or wrong");
        assertThat(timed).containsExactly(401);

        MockHttpServletRequest withToken = new MockHttpServletRequest("POST", "/push");
        withToken.setServletPath("/push");
        withToken.setContentType("text/plain");
        withToken.setContent("{}".getBytes(StandardCharsets.UTF_8));
        withToken.addHeader("Authorization", "Bearer s3cret");
        MockHttpServletResponse answered = new MockHttpServletResponse();
        guarded.doFilter(withToken, answered, new MockFilterChain());
        assertThat(answered.getStatus())
                .as("with the token, the body's checks come next")
                .isEqualTo(415);
    }

    @Test
    void a_query_parameter_given_twice_is_refused_naming_it() throws Exception {
        MockHttpServletRequest request = new MockHttpServletRequest("POST", "/push");
        request.setServletPath("/push");
        request.setQueryString("a=1&a=2");
        MockHttpServletResponse response = new MockHttpServletResponse();

        filter.doFilter(request, response, new MockFilterChain());

        assertThat(response.getStatus()).isEqualTo(400);
        assertThat(response.getContentAsString()).contains("a is given twice");
    }
}
