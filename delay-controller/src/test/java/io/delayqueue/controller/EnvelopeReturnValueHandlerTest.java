package io.delayqueue.controller;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.lang.reflect.Method;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.core.MethodParameter;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.json.Jackson2ObjectMapperBuilder;
import org.springframework.http.converter.json.MappingJackson2HttpMessageConverter;
import org.springframework.mock.http.MockHttpOutputMessage;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.web.context.request.ServletWebRequest;
import org.springframework.web.method.support.ModelAndViewContainer;

class EnvelopeReturnValueHandlerTest {
    private final ObjectMapper json = Jackson2ObjectMapperBuilder.json()
            .factory(new Utf8WriterJsonFactory())
            .build();
    private final EnvelopeReturnValueHandler handler = new EnvelopeReturnValueHandler(json);

    @Test
    void writes_the_same_bytes_as_the_jackson_converter_with_status_length_and_headers() throws Exception {
        ResponseEntity<ApiResponse<List<String>>> entity = ResponseEntity.status(202)
                .header("Retry-After", "1")
                .contentType(MediaType.APPLICATION_JSON)
                .body(new ApiResponse<>(true, 202, List.of("id-1", "\u00e9t\u00e9 \uD83D\uDE00 \"q\""), "journaled"));
        MockHttpServletResponse response = new MockHttpServletResponse();
        ModelAndViewContainer mav = new ModelAndViewContainer();

        handler.handleReturnValue(entity, returnType("list"), mav, webRequest(response));

        MockHttpOutputMessage converted = new MockHttpOutputMessage();
        new MappingJackson2HttpMessageConverter(json).write(entity.getBody(), MediaType.APPLICATION_JSON, converted);
        assertThat(mav.isRequestHandled()).isTrue();
        assertThat(response.getStatus()).isEqualTo(202);
        assertThat(response.getContentAsByteArray()).isEqualTo(converted.getBodyAsBytes());
        assertThat(response.getContentLength()).isEqualTo(converted.getBodyAsBytes().length);
        assertThat(response.getContentType()).isEqualTo("application/json");
        assertThat(response.getHeader("Retry-After")).isEqualTo("1");
        assertThat(response.getHeaders("Content-Type")).hasSize(1);
        // an emoji goes out as its own four UTF-8 bytes, not as two escaped surrogates
        assertThat(response.getContentAsString(java.nio.charset.StandardCharsets.UTF_8))
                .contains("\uD83D\uDE00")
                .doesNotContain("\\ud83d");
    }

    @Test
    void takes_only_entities_of_the_envelope() throws Exception {
        assertThat(handler.supportsReturnType(returnType("single"))).isTrue();
        assertThat(handler.supportsReturnType(returnType("list"))).isTrue();
        assertThat(handler.supportsReturnType(returnType("plain"))).isFalse();
        assertThat(handler.supportsReturnType(returnType("bare"))).isFalse();
    }

    private static ServletWebRequest webRequest(MockHttpServletResponse response) {
        return new ServletWebRequest(new MockHttpServletRequest("POST", "/push"), response);
    }

    private static MethodParameter returnType(String method) throws NoSuchMethodException {
        Method m = Handlers.class.getDeclaredMethod(method);
        return new MethodParameter(m, -1);
    }

    @SuppressWarnings("unused")
    private static final class Handlers {
        ResponseEntity<ApiResponse<String>> single() {
            return null;
        }

        ResponseEntity<ApiResponse<List<String>>> list() {
            return null;
        }

        ResponseEntity<String> plain() {
            return null;
        }

        ApiResponse<String> bare() {
            return null;
        }
    }
}
