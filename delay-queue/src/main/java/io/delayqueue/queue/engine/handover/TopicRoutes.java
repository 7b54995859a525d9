package io.delayqueue.queue.engine.handover;

import io.delayqueue.queue.store.DueRouting;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/** Which dispatcher each topic goes to: {@code delay.dispatch.topics.<topic>}, else the default. */
public final class TopicRoutes {
    private final String defaultDispatcher;
    private final Map<String, String> byTopic;
    private final DueRouting dueRouting;

    public TopicRoutes(String defaultDispatcher, Map<String, String> byTopic) {
        this.defaultDispatcher = defaultDispatcher;
        this.byTopic = Map.copyOf(byTopic);
        boolean defaultPull = DispatchSettings.PULL.equals(defaultDispatcher);
        Set<String> exceptions = new HashSet<>();
        byTopic.forEach((topic, name) -> {
            if (DispatchSettings.PULL.equals(name) != defaultPull) {
                exceptions.add(topic);
            }
        });
        this.dueRouting = new DueRouting(defaultPull, exceptions);
    }

    public String dispatcherOf(String topic) {
        return byTopic.getOrDefault(topic, defaultDispatcher);
    }

    public boolean isPull(String topic) {
        return dueRouting.isPull(topic);
    }

    public DueRouting dueRouting() {
        return dueRouting;
    }

    /** Every dispatcher name in use, {@code pull} excluded. */
    public Set<String> pushDispatchers() {
        Set<String> names = new HashSet<>(byTopic.values());
        names.add(defaultDispatcher);
        names.remove(DispatchSettings.PULL);
        return names;
    }
}
