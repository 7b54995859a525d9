package io.delayqueue.config;

import io.delayqueue.queue.coordination.HaMode;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.UUID;

/** How the instances of a queue share the work. */
public class HaProperties {
    /** {@code standalone} (this process scans every shard), {@code master-slave} or {@code cluster}. */
    private HaMode mode = HaMode.DEFAULT;

    /** This instance's name in ZooKeeper, unique among the live instances; unset: host, pid and a random tag. */
    private String instanceId;

    public HaMode getMode() {
        return mode;
    }

    public void setMode(HaMode mode) {
        this.mode = mode;
    }

    public String getInstanceId() {
        return instanceId;
    }

    public void setInstanceId(String instanceId) {
        this.instanceId = instanceId;
    }

    /** The configured id, or {@code <host>-<pid>-<random>}. */
    public String instanceIdOrGenerated() {
        if (instanceId != null && !instanceId.isBlank()) {
            return instanceId;
        }
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            host = "host";
        }
        return host.replace('/', '_') + "-"
                + ManagementFactory.getRuntimeMXBean().getPid() + "-"
                + UUID.randomUUID().toString().substring(0, 4);
    }
}
