package io.delayqueue.e2e.support;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Closes every non-null static {@link AutoCloseable} field of the test class (servers the test started)
 * once the class is done. Declare it with {@code @ExtendWith} <em>above</em> {@code @SpringBootTest}:
 * extensions registered first finish last, so this runs after Spring closed the (dirtied) application
 * context, and no engine still talks to the servers when they go.
 */
public final class ClosesStaticFixtures implements AfterAllCallback {
    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        for (Field f : context.getRequiredTestClass().getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers()) && AutoCloseable.class.isAssignableFrom(f.getType())) {
                f.setAccessible(true);
                AutoCloseable fixture = (AutoCloseable) f.get(null);
                if (fixture != null) {
                    fixture.close();
                }
            }
        }
    }
}
