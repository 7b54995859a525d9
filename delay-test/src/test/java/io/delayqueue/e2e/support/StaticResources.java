package io.delayqueue.e2e.support;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Closes the test class's {@code static final} {@link AutoCloseable} fields (brokers, servers) once the
 * class is done, last declared first. Declare it with {@code @ExtendWith} <em>above</em> {@code
 * @SpringBootTest}: extensions registered first finish last, so the application is closed before the
 * brokers it sends to go away.
 */
public final class StaticResources implements AfterAllCallback {
    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        List<AutoCloseable> resources = new ArrayList<>();
        for (Field f : context.getRequiredTestClass().getDeclaredFields()) {
            int m = f.getModifiers();
            if (Modifier.isStatic(m) && Modifier.isFinal(m) && AutoCloseable.class.isAssignableFrom(f.getType())) {
                f.setAccessible(true);
                resources.add((AutoCloseable) f.get(null));
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
}
