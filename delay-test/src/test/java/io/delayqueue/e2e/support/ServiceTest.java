package io.delayqueue.e2e.support;

import io.delayqueue.core.DelayQueueApplication;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.annotation.AliasFor;
import org.springframework.test.annotation.DirtiesContext;

/**
 * The whole service on a random port, one application per test class: {@link DelayQueueApplication} as a
 * {@code @SpringBootTest}, closed when the class is done ({@code @DirtiesContext}), after which
 * {@link StaticResources} closes the class's static resources, its {@link ServiceStores} among them.
 * {@link StaticResources} is declared first so that it finishes last: the application (and its journal, which
 * flushes on close) stops before the stores and servers it talks to go away.
 *
 * <p>The test class keeps what is its own: its {@link #properties()}, its {@code @Import}s and a
 * {@code @DynamicPropertySource} that registers its stores (and any property computed at run time).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ExtendWith(StaticResources.class)
@SpringBootTest(classes = DelayQueueApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
public @interface ServiceTest {
    /** The test's own properties, as {@code @SpringBootTest(properties = ...)}: {@code "name=value"}. */
    @AliasFor(annotation = SpringBootTest.class, attribute = "properties")
    String[] properties() default {};
}
