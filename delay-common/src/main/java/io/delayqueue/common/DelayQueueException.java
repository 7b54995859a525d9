package io.delayqueue.common;

/**
 * Base of the errors the service reports to clients. Each carries the HTTP status it maps to, so that
 * the API layer never has to guess (and never answers an error with 200).
 */
public class DelayQueueException extends RuntimeException {
    private final int httpStatus;
    private volatile Object data;

    public DelayQueueException(int httpStatus, String message) {
        super(message);
        this.httpStatus = httpStatus;
    }

    public DelayQueueException(int httpStatus, String message, Throwable cause) {
        super(message, cause);
        this.httpStatus = httpStatus;
    }

    public int httpStatus() {
        return httpStatus;
    }

    /**
     * What the answer's {@code data} carries besides the message, or null: a push's job id or ids, the job a 404 or
     * 409 concerns, the field a 400 names ({@link FieldError}).
     */
    public Object data() {
        return data;
    }

    /**
     * Sets what the answer's {@code data} carries (by the code that creates the exception for one caller, replacing
     * what the exception set itself): a failed push answers with its job's id, so that the client can retry with it.
     */
    public DelayQueueException withData(Object data) {
        this.data = data;
        return this;
    }

    /**
     * A request field is missing, malformed or out of range (400). The message names the field, and so does the
     * answer's {@code data} ({@link FieldError}: the field, a batch element's index, the job's id).
     */
    public static final class InvalidField extends DelayQueueException {
        private final String field;

        public InvalidField(String field, String problem) {
            super(400, field + " " + problem);
            this.field = field;
            withData(FieldError.of(field));
        }

        public String field() {
            return field;
        }

        /**
         * This error, its {@code data} naming the job {@code id} too (the id the request gave the job at fault,
         * when it can name one and is not itself the field at fault).
         */
        public InvalidField naming(String id) {
            if (data() instanceof FieldError error) {
                withData(error.naming(id));
            }
            return this;
        }
    }

    /** No job with this id (404). */
    public static final class JobNotFound extends DelayQueueException {
        public JobNotFound(String id) {
            super(404, "job " + id + " not found");
            withData(id);
        }
    }

    /** The job exists but its state does not allow the operation (409). */
    public static final class StateConflict extends DelayQueueException {
        private final JobStatus status;

        public StateConflict(String id, JobStatus status, String message) {
            super(409, "job " + id + " is " + status + ": " + message);
            this.status = status;
            withData(id);
        }

        public JobStatus status() {
            return status;
        }
    }

    /**
     * A pushed client id already names another job (409): a field of the push differs from the job the id names,
     * which was kept as it is. The message names the id and the field.
     */
    public static final class IdConflict extends DelayQueueException {
        private final String field;

        public IdConflict(String field, String message) {
            super(409, message);
            this.field = field;
        }

        /** The first field that differs, as the push names it ({@code body}, {@code [2].body}). */
        public String field() {
            return field;
        }
    }

    /** A backing service (Redis, the journal) cannot be reached; nothing was accepted (503). */
    public static final class Unavailable extends DelayQueueException {
        public Unavailable(String message, Throwable cause) {
            super(503, message, cause);
        }
    }

    /**
     * A write may or may not have taken effect: the journal did not answer in time and a commit of it may still
     * land (504). The message says what to retry; retrying with the same id is safe.
     */
    public static final class OutcomeUnknown extends DelayQueueException {
        public OutcomeUnknown(String message, Throwable cause) {
            super(504, message, cause);
        }
    }
}
