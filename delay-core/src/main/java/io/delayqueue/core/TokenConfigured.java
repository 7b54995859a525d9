package io.delayqueue.core;

import io.delayqueue.config.SecurityProperties;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when {@code delay.security.token} sets a token, as {@link SecurityProperties#configuredToken(String)}
 * reads it: the token check's bean and {@link ListenAddress} ask here, so that they never disagree ({@code false}
 * is no token to both).
 */
public final class TokenConfigured extends SpringBootCondition {

    /** Whether {@code environment} sets a token. */
    public static boolean isSet(Environment environment) {
        return SecurityProperties.configuredToken(environment.getProperty(SecurityProperties.TOKEN)) != null;
    }

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        return isSet(context.getEnvironment())
                ? ConditionOutcome.match(SecurityProperties.TOKEN + " sets a token")
                : ConditionOutcome.noMatch(SecurityProperties.TOKEN + " is unset, blank or false");
    }
}
