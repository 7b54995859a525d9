package io.delayqueue.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class JsonCodecTest {

    private static byte[] json(String text) {
        return text.replace('\'', '"').getBytes(StandardCharsets.UTF_8);
    }

    private static AbstractThrowableAssert<?, ?> rejectsOne(String text, String field) {
        return assertThatThrownBy(() -> JsonCodec.readPushRequest(json(text)))
                .isInstanceOfSatisfying(DelayQueueException.InvalidField.class, e -> {
                    assertThat(e.field()).isEqualTo(field);
                    assertThat(e.httpStatus()).isEqualTo(400);
                    assertThat(e.getMessage()).startsWith(field + " ");
                });
    }

    private static AbstractThrowableAssert<?, ?> rejectsBatch(String text, String field) {
        return assertThatThrownBy(() -> JsonCodec.readPushRequests(json(text)))
                .isInstanceOfSatisfying(DelayQueueException.InvalidField.class, e -> assertThat(e.field())
                        .isEqualTo(field));
    }

    // ---- what a 400 names ----

    @Test
    void a_refused_batch_element_is_named_by_its_index_and_the_id_it_was_given() {
        assertThatThrownBy(() -> JsonCodec.readPushRequests(json(
                        "[{'id':'a-1','topic':'t','body':'b'},{'id':'a-2','topic':'t','body':'b','delay':'soon'}]")))
                .isInstanceOfSatisfying(DelayQueueException.InvalidField.class, e -> assertThat(e.data())
                        .isEqualTo(new FieldError("[1].delay", 1, "a-2")));
        assertThatThrownBy(() -> JsonCodec.readPushRequests(json("[{'topic':'t','body':'b','colour':'red'}]")))
                .as("no id given: the index alone")
                .isInstanceOfSatisfying(DelayQueueException.InvalidField.class, e -> assertThat(e.data())
                        .isEqualTo(new FieldError("[0].colour", 0, null)));
        assertThatThrownBy(() -> JsonCodec.readPushRequests(json("[{'topic':'t','body':'b','id':7}]")))
                .as("the id at fault is not named as the job's id")
                .isInstanceOfSatisfying(DelayQueueException.InvalidField.class, e -> assertThat(e.data())
                        .isEqualTo(new FieldError("[0].id", 0, null)));
        assertThatThrownBy(() -> JsonCodec.readPushRequests(json("[{'topic':'t','body':'b'},")))
                .as("a document that is no JSON: the body, no job")
                .isInstanceOfSatisfying(DelayQueueException.InvalidField.class, e -> assertThat(e.data())
                        .isEqualTo(new FieldError("body", null, null)));
        assertThatThrownBy(() -> JsonCodec.readPushRequest(json("{'id':'one','topic':'t','body':'b','ttr':1.5}")))
                .as("a single push: the field and its id")
                .isInstanceOfSatisfying(DelayQueueException.InvalidField.class, e -> assertThat(e.data())
                        .isEqualTo(new FieldError("ttr", null, "one")));
    }

    // ---- accepted ----

    @Test
    void push_request_with_every_field_is_read() {
        PushRequest r = JsonCodec.readPushRequest(json("{'id':'o-1','topic':'orders','subtopic':'close',"
                + "'bizKey':'123','body':'{\\'x\\':1}','delay':30000,'ttr':5000,'maxAttempts':3,"
                + "'url':'http://cb.example/x','priority':2}"));

        assertThat(r)
                .isEqualTo(new PushRequest(
                        "o-1",
                        "orders",
                        "close",
                        "123",
                        "{\"x\":1}",
                        30_000L,
                        null,
                        5_000L,
                        3,
                        "http://cb.example/x",
                        2));
    }

    @Test
    void push_request_with_only_the_required_fields_leaves_the_rest_null() {
        PushRequest r = JsonCodec.readPushRequest(json("  {'topic':'t','body':'b','executeAt':1700000000000}"));

        assertThat(r)
                .isEqualTo(
                        new PushRequest(null, "t", null, null, "b", null, 1_700_000_000_000L, null, null, null, null));
    }

    @Test
    void explicit_null_for_an_optional_field_is_accepted() {
        assertThat(JsonCodec.readPushRequest(json("{'topic':'t','body':'b','delay':null}"))
                        .delay())
                .isNull();
    }

    @Test
    void batch_of_push_requests_is_read_in_order() {
        List<PushRequest> batch =
                JsonCodec.readPushRequests(json("[{'topic':'a','body':'1'},\n{'topic':'b','body':'2','delay':5}]"));

        assertThat(batch)
                .containsExactly(
                        new PushRequest(null, "a", null, null, "1", null, null, null, null, null, null),
                        PushRequest.of("b", "2", 5));
    }

    // ---- rejected, naming the field ----

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '"',
            value = {
                "delay       | '10'",
                "delay       | true",
                "delay       | {}",
                "delay       | []",
                "executeAt   | 'tomorrow'",
                "ttr         | '5000'",
                "maxAttempts | '3'",
                "priority    | false",
                "topic       | 5",
                "topic       | 1.5",
                "topic       | true",
                "topic       | {}",
                "body        | {'a':1}",
                "body        | ['a']",
                "id          | 42",
            })
    void value_of_the_wrong_type_is_rejected_naming_the_field(String field, String value) {
        String doc = "{'topic':'t','body':'b','" + field + "':" + value + "}";
        // the field under test is given last, so a duplicate of topic/body overrides the valid one
        rejectsOne(doc, field);
    }

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '"',
            value = {"delay | 1.5", "delay | 10.0", "delay | 1e3", "maxAttempts | 2.0", "priority | 0.5", "ttr | 1E2"})
    void fraction_for_an_integer_is_rejected_naming_the_field(String field, String value) {
        rejectsOne("{'topic':'t','body':'b','" + field + "':" + value + "}", field);
    }

    @Test
    void integer_out_of_range_is_rejected_naming_the_field() {
        rejectsOne("{'topic':'t','body':'b','maxAttempts':3000000000}", "maxAttempts");
        rejectsOne("{'topic':'t','body':'b','delay':99999999999999999999999}", "delay");
    }

    @Test
    void unknown_field_is_rejected_naming_it() {
        rejectsOne("{'topic':'t','body':'b','colour':'red'}", "colour").hasMessageContaining("not a known field");
    }

    @Test
    void unknown_field_message_lists_the_known_fields() {
        rejectsOne("{'topic':'t','body':'b','delayMs':10}", "delayMs")
                .hasMessageContaining("delay")
                .hasMessageContaining("executeAt");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '"',
            value = {
                "{'topic':",
                "{'topic':'t','body':'b'",
                "{'topic':'t' 'body':'b'}",
                "{topic:'t'}",
                "{'topic':'t','body':'b'} {}",
                "{'topic':'t','body':'b'}]",
            })
    void malformed_json_is_rejected_naming_the_body(String text) {
        rejectsOne(text, "body").hasMessageNotContaining("Source:");
    }

    @Test
    void malformed_json_message_says_it_is_not_valid_json() {
        rejectsOne("{'topic':", "body").hasMessageContaining("not valid JSON");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '"',
            value = {"[]", "'text'", "42", "null", "''"})
    void document_that_is_not_an_object_is_rejected_naming_the_body(String text) {
        rejectsOne(text, "body").hasMessageContaining("JSON object");
    }

    @Test
    void empty_document_is_rejected_naming_the_body() {
        assertThatThrownBy(() -> JsonCodec.readPushRequest(new byte[0]))
                .isInstanceOfSatisfying(DelayQueueException.InvalidField.class, e -> assertThat(e.field())
                        .isEqualTo("body"));
    }

    @Test
    void bad_element_of_a_batch_is_named_by_its_index_and_field() {
        rejectsBatch("[{'topic':'a','body':'1'},{'topic':7,'body':'2'}]", "[1].topic");
        rejectsBatch(
                "[{'topic':'a','body':'1'},{'topic':'b','body':'2'},{'topic':'c','body':'3','delay':0.5}]",
                "[2].delay");
        rejectsBatch("[{'topic':'a','body':'1','extra':1}]", "[0].extra").hasMessageContaining("not a known field");
    }

    @Test
    void batch_element_that_is_not_an_object_is_named_by_its_index() {
        rejectsBatch("[{'topic':'a','body':'1'},'oops']", "[1]");
    }

    @Test
    void batch_that_is_not_an_array_is_rejected_naming_the_body() {
        rejectsBatch("{'topic':'a','body':'1'}", "body").hasMessageContaining("array");
    }

    @Test
    void malformed_batch_is_rejected_naming_the_body() {
        rejectsBatch("[{'topic':'a','body':'1'},", "body").hasMessageContaining("not valid JSON");
    }

    // ---- jobs ----

    @Test
    void job_survives_a_write_and_read() {
        Job job = new Job(
                "3-abc",
                "t",
                "sub",
                "biz",
                "b\u00e9|\n",
                1_700_000_000_123L,
                5_000,
                4,
                "https://x.example/cb",
                1,
                1_700_000_000_000L,
                JobStatus.RESERVED,
                2);

        assertThat(JsonCodec.readJob(JsonCodec.write(job))).isEqualTo(job);
    }

    @Test
    void written_job_leaves_out_null_fields() {
        Job job = new Job("1-a", "t", null, null, "b", 1, 2, 3, null, 0, 4, JobStatus.DELAY, 0);

        String written = JsonCodec.write(job);

        assertThat(written).doesNotContain("subtopic", "bizKey", "url", "null").contains("\"status\":\"DELAY\"");
    }
}
