package io.delayqueue.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A request is read exactly or refused: malformed UTF-8, lone surrogates and duplicate keys are errors naming
 * the body or the field, never a silently different value (Jackson alone reads {@code C0 AF} as {@code /},
 * {@code ED A0 80} and {@code "\uD800"} as a lone surrogate, and a repeated key as its last value).
 */
class JsonCodecEncodingTest {

    /** {@code {"topic":"t","body":"<bytes>"}}. */
    private static byte[] bodyWith(String hex) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes("{\"topic\":\"t\",\"body\":\"a".getBytes(StandardCharsets.US_ASCII));
        out.writeBytes(HexFormat.of().parseHex(hex));
        out.writeBytes("\"}".getBytes(StandardCharsets.US_ASCII));
        return out.toByteArray();
    }

    private static byte[] json(String text) {
        return text.replace('\'', '"').getBytes(StandardCharsets.UTF_8);
    }

    private static void rejects(byte[] json, String field, String messagePart) {
        assertThatThrownBy(() -> JsonCodec.readPushRequest(json))
                .isInstanceOfSatisfying(DelayQueueException.InvalidField.class, e -> {
                    assertThat(e.field()).isEqualTo(field);
                    assertThat(e.httpStatus()).isEqualTo(400);
                    assertThat(e.getMessage()).startsWith(field + " ").contains(messagePart);
                });
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "overlong slash, C0AF",
        "overlong three-byte slash, E080AF",
        "overlong NUL, C080",
        "encoded high surrogate (CESU-8), EDA080",
        "encoded low surrogate, EDB080",
        "emoji as an encoded surrogate pair (CESU-8), EDA0BDEDB880",
        "past U+10FFFF, F4908080",
        "five-byte form, F888808080",
        "stray continuation byte, 80",
        "byte FF, FF",
        "truncated two of three bytes, E4B8",
        "truncated one of four bytes, F0",
    })
    void malformed_utf8_in_a_string_is_refused_naming_the_bytes(String sentence, String hex) {
        rejects(bodyWith(hex), "body", "is not valid UTF-8: bytes " + hex.substring(0, 2));
    }

    @Test
    void malformed_utf8_message_gives_the_bytes_and_their_offset() {
        rejects(bodyWith("C0AF"), "body", "bytes C0 at offset 22");
    }

    @Test
    void long_valid_text_is_read_whole_and_a_bad_byte_far_into_it_is_found_at_its_offset() {
        String text = "é😀中".repeat(3000); // 27 000 bytes: checked in several pieces
        PushRequest r = JsonCodec.readPushRequest(
                ("{\"topic\":\"t\",\"body\":\"" + text + "\"}").getBytes(StandardCharsets.UTF_8));
        assertThat(r.body()).isEqualTo(text);

        byte[] bad = bodyWith("41".repeat(20_000) + "EDA080");
        rejects(bad, "body", "bytes ED A0 80 at offset " + (22 + 20_000));
    }

    @Test
    void truncated_sequence_at_the_very_end_is_refused() {
        byte[] json = json("{'topic':'t','body':'x'}");
        byte[] cut = java.util.Arrays.copyOf(json, json.length + 1);
        cut[json.length] = (byte) 0xE4;
        rejects(cut, "body", "is not valid UTF-8");
    }

    @Test
    void malformed_utf8_in_a_key_is_refused() {
        byte[] json = json("{'topic':'t','body':'x','id':'k'}");
        json[json.length - 8] = (byte) 0xC0; // the 'i' of "id"
        rejects(json, "body", "is not valid UTF-8");
    }

    @Test
    void malformed_utf8_in_a_batch_is_refused() {
        byte[] element = bodyWith("EDA080");
        byte[] json = ("[{\"topic\":\"t\",\"body\":\"x\"}," + new String(element, StandardCharsets.ISO_8859_1) + "]")
                .getBytes(StandardCharsets.ISO_8859_1);
        assertThatThrownBy(() -> JsonCodec.readPushRequests(json))
                .isInstanceOfSatisfying(DelayQueueException.InvalidField.class, e -> assertThat(e.getMessage())
                        .startsWith("body of the request is not valid UTF-8"));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "id | \\uD800",
                "topic | \\uD800",
                "body | \\uDBFF",
                "subtopic | \\uDC00",
                "bizKey | x\\uDFFF",
                "url | http://h/\\uD800",
                "body | \\uDE00\\uD83D",
                "body | \\uD83Dx",
                "body | \\uD83D\\uD83D\\uDE00",
            })
    void a_lone_surrogate_escape_in_any_string_field_is_refused_naming_the_field(String field, String value) {
        String other = field.equals("body") ? "'topic':'t'" : "'topic':'t','body':'b'";
        String text = "{" + other + ",'" + field + "':'" + value + "'}";
        if (field.equals("topic")) {
            text = "{'body':'b','topic':'" + value + "'}";
        }
        rejects(json(text), field, "holds a lone surrogate \\u");
    }

    @Test
    void lone_surrogate_message_says_which_and_where() {
        rejects(json("{'topic':'t','body':'ab\\uDC00'}"), "body", "lone surrogate \\uDC00 at character 2");
    }

    @Test
    void lone_surrogate_in_a_batch_element_is_named_by_index_and_field() {
        assertThatThrownBy(() -> JsonCodec.readPushRequests(
                        json("[{'topic':'t','body':'x'},{'topic':'t','body':'x','bizKey':'\\uD800'}]")))
                .isInstanceOfSatisfying(DelayQueueException.InvalidField.class, e -> assertThat(e.field())
                        .isEqualTo("[1].bizKey"));
    }

    @Test
    void lone_surrogate_in_a_string_list_is_refused() {
        assertThatThrownBy(() -> JsonCodec.readObject(json("{'ids':['a','\\uD800']}"), Ids.class))
                .isInstanceOfSatisfying(DelayQueueException.InvalidField.class, e -> assertThat(e.field())
                        .isEqualTo("ids[1]"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"\\uD83D\\uDE00", "\\uD840\\uDC00", "\\u4E2D\\u6587", "e\\u0301", "\\uFFFF", "\\u0000"})
    void well_formed_escapes_are_read_exactly(String escaped) {
        PushRequest r = JsonCodec.readPushRequest(json("{'topic':'t','body':'" + escaped + "'}"));
        String expected = JsonCodec.readObject(json("{'s':'" + escaped + "'}"), Text.class)
                .s();

        assertThat(r.body()).isEqualTo(expected);
        assertThat(r.body().codePoints().allMatch(Character::isValidCodePoint)).isTrue();
    }

    record Text(String s) {}

    record Ids(List<String> ids) {}

    @Test
    void raw_non_ascii_text_is_read_exactly() {
        String text = "订单 42 😀 e\u0301 𠀀 👍🏽";
        PushRequest r =
                JsonCodec.readPushRequest(("{\"topic\":\"t\",\"body\":\"" + text + "\",\"bizKey\":\"" + text + "\"}")
                        .getBytes(StandardCharsets.UTF_8));

        assertThat(r.body().getBytes(StandardCharsets.UTF_8)).isEqualTo(text.getBytes(StandardCharsets.UTF_8));
        assertThat(r.bizKey()).isEqualTo(text);
    }

    @Test
    void a_duplicate_key_is_refused_naming_it() {
        rejects(json("{'topic':'t','body':'x','topic':'u'}"), "topic", "is given twice");
    }

    @Test
    void a_duplicate_key_with_the_same_value_is_refused_too() {
        rejects(json("{'topic':'t','body':'x','body':'x'}"), "body", "is given twice");
    }

    @Test
    void a_duplicate_key_in_a_batch_element_is_named_by_index_and_key() {
        assertThatThrownBy(() -> JsonCodec.readPushRequests(
                        json("[{'topic':'t','body':'x'},{'topic':'t','body':'x','delay':1,'delay':2}]")))
                .isInstanceOfSatisfying(DelayQueueException.InvalidField.class, e -> {
                    assertThat(e.field()).isEqualTo("[1].delay");
                    assertThat(e.getMessage()).startsWith("[1].delay is given twice");
                });
    }

    @Test
    void a_duplicate_key_in_a_nested_object_is_named_by_its_path() {
        assertThatThrownBy(() -> JsonCodec.readObject(json("{'ids':['a'],'ids':['b']}"), Ids.class))
                .isInstanceOfSatisfying(DelayQueueException.InvalidField.class, e -> assertThat(e.field())
                        .isEqualTo("ids"));
    }
}
