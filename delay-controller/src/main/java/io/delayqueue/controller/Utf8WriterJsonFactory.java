package io.delayqueue.controller;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.MappingJsonFactory;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;

/**
 * The JSON factory of the HTTP answers: UTF-8 is written through a {@link java.io.Writer}, so that a character
 * beyond U+FFFF (an emoji) goes out as its own four UTF-8 bytes, exactly as it was pushed. Jackson 2.17's
 * byte-level UTF-8 generator writes it as two {@code \\u} escapes of its surrogates instead (the opt-in fix,
 * {@code JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8}, arrives in 2.18).
 */
public class Utf8WriterJsonFactory extends MappingJsonFactory {

    public Utf8WriterJsonFactory() {
        super();
    }

    protected Utf8WriterJsonFactory(JsonFactory source, ObjectMapper mapper) {
        super(source, mapper);
    }

    @Override
    public JsonGenerator createGenerator(OutputStream out, JsonEncoding enc) throws IOException {
        if (enc != JsonEncoding.UTF8) {
            return super.createGenerator(out, enc);
        }
        return createGenerator(new OutputStreamWriter(out, StandardCharsets.UTF_8));
    }

    @Override
    public JsonFactory copy() {
        return new Utf8WriterJsonFactory(this, null);
    }
}
