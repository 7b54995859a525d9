package io.delayqueue.common;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * What a 400 answer's {@code data} names: the field at fault, as the message names it ({@code delay}, {@code
 * [2].delay}, {@code jobs}); for an element of a batch ({@code POST /push/batch}, {@code POST /jobs/finish}), its
 * {@code index} in the array; and the job's {@code id} when the request gave one that can name a job (never when
 * the id itself is at fault). Nothing was written, so a client fixes the job the answer names and sends again.
 *
 * @param index the element's position in the batch, from 0; null outside a batch or for the batch as a whole
 * @param id the job's id as the request gave it; null when it gave none (a generated id is fixed only once every
 *     job of the push is valid), or none that can name a job
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record FieldError(String field, Integer index, String id) {

    /** The error of {@code field}, with the index its leading {@code [i]} gives ({@code [2].delay}: 2). */
    public static FieldError of(String field) {
        return new FieldError(field, indexOf(field), null);
    }

    /**
     * This error, naming the job {@code id} when it can name one and is not the field at fault ({@code id}, {@code
     * [2].id}); else this error as it is.
     */
    public FieldError naming(String id) {
        if (id == null || !JobIds.isClientId(id) || field.equals("id") || field.endsWith("].id")) {
            return this;
        }
        return new FieldError(field, index, id);
    }

    private static Integer indexOf(String field) {
        if (field == null || !field.startsWith("[")) {
            return null;
        }
        int close = field.indexOf(']');
        if (close < 2 || close > 10) { // at most 9 digits: a batch holds far fewer jobs
            return null;
        }
        for (int i = 1; i < close; i++) {
            if (!Character.isDigit(field.charAt(i))) {
                return null;
            }
        }
        return Integer.valueOf(field.substring(1, close));
    }
}
