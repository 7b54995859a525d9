package io.delayqueue.queue.coordination;

import java.util.ArrayList;
import java.util.List;

/**
 * What the web console shows of the coordination: the instances taking part, their roles and the shards each is
 * assigned, and the state of the connection to ZooKeeper, as this instance sees them now.
 *
 * @param mode {@code standalone}, {@code master-slave} or {@code cluster}
 * @param self this instance's id
 * @param zooKeeper this instance's ZooKeeper connection ({@code CONNECTED}, {@code SUSPENDED}, {@code LOST},
 *     {@code RECONNECTED}); {@code null} without ZooKeeper
 * @param instances every instance taking part, this one included
 */
public record CoordinationView(String mode, String self, String zooKeeper, List<Instance> instances) {

    /**
     * One instance.
     *
     * @param id its id
     * @param role {@code standalone}, {@code leader}, {@code follower} or {@code member}
     * @param shards the shards assigned to it (in cluster mode, by the balancer's rule over the members as this
     *     instance last saw them); {@code null} for every shard
     */
    public record Instance(String id, String role, List<Integer> shards) {}

    /**
     * The view of cluster mode: each of {@code members} (sorted, as the balancer last saw them) with the shards the
     * balancer's rule assigns it, shard {@code s} to the {@code (s % members)}-th member; this instance is listed
     * without shards when it is not among them (not joined yet, or its connection is lost).
     */
    public static CoordinationView cluster(
            String self, String selfRole, String zooKeeper, List<String> members, int shards) {
        List<Instance> instances = new ArrayList<>();
        for (int m = 0; m < members.size(); m++) {
            List<Integer> assigned = new ArrayList<>();
            for (int s = m; s < shards; s += members.size()) {
                assigned.add(s);
            }
            String id = members.get(m);
            instances.add(new Instance(id, id.equals(self) ? selfRole : "member", assigned));
        }
        if (!members.contains(self)) {
            instances.add(new Instance(self, selfRole, List.of()));
        }
        return new CoordinationView("cluster", self, zooKeeper, instances);
    }
}
