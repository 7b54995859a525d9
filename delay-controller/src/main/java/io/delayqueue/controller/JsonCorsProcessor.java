package io.delayqueue.controller;

import io.delayqueue.common.JsonCodec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.ServerHttpResponse;
import org.springframework.web.cors.DefaultCorsProcessor;

/**
 * Spring's CORS checks with the refusal in the envelope: the service allows no other origin, so a browser's
 * preflight (which every cross-site JSON request needs, see {@link StrictInputInterceptor}) gets a 403 that
 * says so, instead of Spring's plain-text {@code Invalid CORS request}.
 */
public class JsonCorsProcessor extends DefaultCorsProcessor {

    @Override
    protected void rejectRequest(ServerHttpResponse response) throws IOException {
        response.setStatusCode(HttpStatus.FORBIDDEN);
        response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
        response.getBody()
                .write(JsonCodec.write(new ApiResponse<>(
                                false, 403, null, "cross-origin request refused: this service allows no other origin"))
                        .getBytes(StandardCharsets.UTF_8));
        response.flush();
    }
}
