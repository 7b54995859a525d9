package io.delayqueue.e2e.support;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** Looks at several {@link HaServiceProcess}es as one queue: who owns which shard, who delivered what. */
public final class Cluster {
    private Cluster() {}

    /** Whether every shard in {@code [0, shards)} is owned by exactly one of {@code instances}. */
    public static boolean shardsDivided(List<HaServiceProcess> instances, int shards) {
        Map<Integer, Integer> owners = new HashMap<>();
        for (HaServiceProcess p : instances) {
            for (int s : p.ownedShards()) {
                owners.merge(s, 1, Integer::sum);
            }
        }
        for (int s = 0; s < shards; s++) {
            if (owners.getOrDefault(s, 0) != 1) {
                return false;
            }
        }
        return owners.size() == shards;
    }

    /** {@code name=[shards]} of each instance, for messages. */
    public static Map<String, List<Integer>> ownership(List<HaServiceProcess> instances) {
        Map<String, List<Integer>> m = new TreeMap<>();
        instances.forEach(p -> m.put(p.name(), p.ownedShards()));
        return m;
    }

    /** Deliveries of {@code ids} by any of {@code instances}. */
    public static List<HaServiceProcess.Delivery> deliveriesOf(Set<String> ids, List<HaServiceProcess> instances) {
        List<HaServiceProcess.Delivery> out = new ArrayList<>();
        for (HaServiceProcess p : instances) {
            for (HaServiceProcess.Delivery d : p.deliveries()) {
                if (ids.contains(d.id())) {
                    out.add(d);
                }
            }
        }
        return out;
    }

    /** The ids of {@code expected} that none of {@code instances} delivered. */
    public static Set<String> missing(Set<String> expected, List<HaServiceProcess> instances) {
        Set<String> missing = new HashSet<>(expected);
        for (HaServiceProcess p : instances) {
            p.deliveries().forEach(d -> missing.remove(d.id()));
        }
        return missing;
    }

    /** Jobs printed by all of {@code instances} so far, duplicates included. */
    public static int deliveryCount(List<HaServiceProcess> instances) {
        return instances.stream().mapToInt(HaServiceProcess::deliveryCount).sum();
    }

    /**
     * Whether every one of {@code expected} was delivered by one of {@code instances}, given that they had
     * delivered {@code before} jobs when these were pushed. Looks at the ids only once the count says that
     * enough jobs came, so that polling it stays cheap.
     */
    public static boolean allDelivered(Set<String> expected, List<HaServiceProcess> instances, int before) {
        return deliveryCount(instances) - before >= expected.size()
                && missing(expected, instances).isEmpty();
    }

    /** Deliveries beyond the first of each job. */
    public static long duplicates(List<HaServiceProcess.Delivery> deliveries) {
        return deliveries.size()
                - deliveries.stream()
                        .map(HaServiceProcess.Delivery::id)
                        .distinct()
                        .count();
    }
}
