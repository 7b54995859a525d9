package io.delayqueue.common;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Decodes UTF-8 that is well-formed (RFC 3629) or refuses it: an overlong form ({@code C0 AF} for {@code /}),
 * an encoded surrogate ({@code ED A0 80}, CESU-8), a code point past U+10FFFF, a truncated sequence or a
 * stray byte is an {@link DelayQueueException.InvalidField}, never a {@code U+FFFD} or a silently different
 * character. The JDK's decoder with {@link CodingErrorAction#REPORT} does the checking; Jackson's own UTF-8
 * reader accepts overlong forms and encoded surrogates.
 */
public final class StrictUtf8 {
    private StrictUtf8() {}

    /**
     * Checks that {@code bytes} are well-formed UTF-8 without keeping the text (for a parser that reads the
     * bytes itself).
     *
     * @param field what the message names, e.g. {@code "body"}
     * @param what the rest of the message's subject, e.g. {@code "of the request"}, or empty
     * @throws DelayQueueException.InvalidField if they are not; the message gives the offending bytes and their
     *     offset
     */
    public static void requireWellFormed(byte[] bytes, String field, String what) {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer scratch = CharBuffer.allocate(Math.min(bytes.length, 8192));
        CharsetDecoder decoder = decoder();
        CoderResult result;
        do {
            scratch.clear();
            result = decoder.decode(in, scratch, true);
        } while (result.isOverflow());
        if (!result.isError()) {
            result = decoder.flush(scratch.clear());
        }
        if (result.isError()) {
            throw malformed(bytes, in.position(), result.length(), field, what);
        }
    }

    /**
     * The text of {@code bytes}.
     *
     * @param field what the message names, e.g. {@code "body"}
     * @param what the rest of the message's subject, e.g. {@code "of the request"}, or empty
     * @throws DelayQueueException.InvalidField if the bytes are not well-formed UTF-8; the message gives the
     *     offending bytes and their offset
     */
    public static CharBuffer decode(byte[] bytes, String field, String what) {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        // UTF-8 never decodes to more chars than it has bytes
        CharBuffer out = CharBuffer.allocate(bytes.length);
        CharsetDecoder decoder = decoder();
        CoderResult result = decoder.decode(in, out, true);
        if (!result.isError()) {
            result = decoder.flush(out);
        }
        if (result.isError()) {
            throw malformed(bytes, in.position(), result.length(), field, what);
        }
        return out.flip();
    }

    private static CharsetDecoder decoder() {
        return StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
    }

    private static DelayQueueException.InvalidField malformed(
            byte[] bytes, int at, int length, String field, String what) {
        int end = Math.min(bytes.length, at + length);
        StringBuilder bad = new StringBuilder();
        for (int i = at; i < end; i++) {
            bad.append(i > at ? " " : "").append(String.format("%02X", bytes[i] & 0xff));
        }
        return new DelayQueueException.InvalidField(
                field,
                (what.isEmpty() ? "" : what + " ") + "is not valid UTF-8: bytes " + bad + " at offset " + at
                        + " (overlong forms, encoded surrogates, truncated sequences and stray bytes are refused)");
    }
}
