package io.delayqueue.e2e.support;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Closes the test class's static {@link AutoCloseable} fields (brokers, servers, Redis fixtures) that are
 * set once the class is done, last declared first, every one even when another fails. Declare it with
 * {@code @ExtendWith} <em>above</em> {@code @SpringBootTest}: extensions registered first finish last, so the
 * application is closed before the servers it talks to go away. {@link #stringField} reads the names the
 * clean-up extensions of {@link TestRedis} and {@link TestDatabase} look for.
 */
public final class StaticResources implements AfterAllCallback {
    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        List<AutoCloseable> resources = new ArrayList<>();
        for (Field f : context.getRequiredTestClass().getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers()) && AutoCloseable.class.isAssignableFrom(f.getType())) {
                f.setAccessible(true);
                AutoCloseable resource = (AutoCloseable) f.get(null);
                if (resource != null) {
                    resources.add(resource);
                }
            }
        }
        Collections.reverse(resources);
        Exception first = null;
        for (AutoCloseable r : resources) {
            try {
                r.close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** The value of the static {@code String} field {@code name} of {@code testClass} or of a superclass. */
    public static String stringField(Class<?> testClass, String name) throws IllegalAccessException {
        for (Class<?> c = testClass; c != null; c = c.getSuperclass()) {
            try {
                Field f = c.getDeclaredField(name);
                if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
                    f.setAccessible(true);
                    return (String) f.get(null);
                }
            } catch (NoSuchFieldException ignored) {
                // look in the superclass
            }
        }
        throw new IllegalStateException(testClass + " declares no static String " + name);
    }
}
