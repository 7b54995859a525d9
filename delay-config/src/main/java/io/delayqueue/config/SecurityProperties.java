package io.delayqueue.config;

/** Access control. */
public class SecurityProperties {
    /** When set, calls that change the queue need {@code Authorization: Bearer <token>}. */
    private String token;

    public String getToken() {
        return token;
    }

    public void setToken(String token) {
        this.token = token;
    }
}
