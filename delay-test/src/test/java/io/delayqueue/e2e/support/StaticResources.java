package io.delayqueue.e2e.support;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Closes the test class's static {@link AutoCloseable} fields (brokers, servers, proxies, the
 * {@link ServiceStores}) that are set once the class is done, last declared first, every one even when another
 * fails. Declare it with {@code @ExtendWith} <em>above</em> {@code @SpringBootTest}: extensions registered first
 * finish last, so the application (and its journal, which flushes on close) is closed before the servers and
 * stores it talks to go away.
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
}
