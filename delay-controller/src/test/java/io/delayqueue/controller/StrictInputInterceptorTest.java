package io.delayqueue.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayqueue.common.DelayQueueException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.mock.web.MockHttpServletRequest;

class StrictInputInterceptorTest {

    private static MockHttpServletRequest jsonPost(String contentType) {
        MockHttpServletRequest request = new MockHttpServletRequest("POST", "/push");
        request.setContent("{}".getBytes(StandardCharsets.UTF_8));
        request.setContentType(contentType);
        return request;
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "application/json",
                "Application/JSON",
                "application/json; charset=utf-8",
                "application/json;charset=UTF-8",
                "application/json; charset=\"UTF-8\"",
                "application/json ; charset=utf8",
                "application/json; charset=utf-8; foo=bar"
            })
    void a_json_body_in_utf_8_passes(String contentType) {
        assertThatCode(() -> StrictInputInterceptor.requireJsonBody(jsonPost(contentType)))
                .doesNotThrowAnyException();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "application/jsonx",
                "application/json-patch+json",
                "application/json; charset=latin1",
                "application/json;charset=utf-16",
                "application/json; charset=utf-8x",
                "text/plain",
                "application/x-www-form-urlencoded",
                "json"
            })
    void another_type_or_charset_is_refused_with_415(String contentType) {
        assertThatThrownBy(() -> StrictInputInterceptor.requireJsonBody(jsonPost(contentType)))
                .isInstanceOfSatisfying(DelayQueueException.class, e -> assertThat(e.httpStatus())
                        .isEqualTo(415));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "jobId=abc",
                "jobId=a%2Fb",
                "jobId=%E4%B8%AD%F0%9F%98%80",
                "jobId=a+b",
                "expire=true&jobId=x",
                "jobId=",
                "jobId",
                "jobId=x&",
                "&&jobId=x",
                "jobId=a=b"
            })
    void a_well_formed_query_passes(String query) {
        assertThatCode(() -> StrictInputInterceptor.requireWellFormedQuery(query))
                .doesNotThrowAnyException();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "jobId=%C0%AF | jobId | jobId (percent-decoded) is not valid UTF-8: bytes C0 at offset 0",
                "jobId=ab%ED%A0%80 | jobId | bytes ED A0 80 at offset 2",
                "jobId=%E4%B8 | jobId | is not valid UTF-8",
                "jobId=%F4%90%80%80 | jobId | is not valid UTF-8",
                "jobId=ab%zz | jobId | jobId is not percent-encoded correctly: %zz at offset 2",
                "jobId=ab% | jobId | is not percent-encoded correctly: % at offset 2",
                "jobId=ab%4 | jobId | is not percent-encoded correctly: %4 at offset 2",
                "%C0=x | query parameter name | query parameter name (percent-decoded) is not valid UTF-8",
                "jobId=a&jobId=b | jobId | jobId is given twice",
                "jobId=a&job%49d=b | jobId | jobId is given twice",
            })
    void a_query_that_would_be_read_as_something_else_is_refused_naming_the_parameter(
            String query, String field, String message) {
        assertThatThrownBy(() -> StrictInputInterceptor.requireWellFormedQuery(query))
                .isInstanceOfSatisfying(DelayQueueException.InvalidField.class, e -> {
                    assertThat(e.httpStatus()).isEqualTo(400);
                    assertThat(e.field()).isEqualTo(field);
                    assertThat(e.getMessage()).contains(message);
                });
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "/jobs/abc | ",
                "/jobs/%E4%B8%AD | ",
                "/jobs/%C0%AF | path (percent-decoded) is not valid UTF-8: bytes C0 at offset 6",
                "/jobs/a+%ED%B0%80 | bytes ED B0 80 at offset 8",
            })
    void a_path_problem_is_described(String path, String problem) {
        if (problem == null) {
            assertThat(StrictInputInterceptor.pathProblem(path)).isNull();
        } else {
            assertThat(StrictInputInterceptor.pathProblem(path)).contains(problem);
        }
    }
}
