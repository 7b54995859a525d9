package io.delayqueue.controller;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * One HTTP status a handler can answer, and when: the list kept beside each handler of the API, from which {@link
 * ApiDocumentation} describes the operation's answers (each in the JSON envelope). The statuses every operation
 * can give are added there and need no entry: 400 for a malformed or repeated query parameter, 415 for a body not
 * sent as {@code application/json}, 401 when the call needs {@code delay.security.token}, 413 when it reads a
 * body. An entry for one of them replaces the general description with the operation's own. Each status gets an
 * example of its own in the description: the envelope with that code and the entry's {@link #example()} message.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
@Repeatable(Answer.List.class)
public @interface Answer {
    /** The HTTP status, equal to the envelope's {@code code}. */
    int code();

    /** When the operation answers it, and what {@code data} then holds. */
    String when();

    /**
     * The answer's message in the description's example of this status (for a 400, starting with the field, as the
     * service's do); empty: the usual message of the status ({@link ApiDocumentation}).
     */
    String example() default "";

    /** The answers of one handler. */
    @Documented
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.METHOD)
    @interface List {
        Answer[] value();
    }
}
