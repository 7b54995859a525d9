package io.delayqueue.queue.coordination;

/** The only instance: owns every shard. */
public final class StandaloneCoordinator implements Coordinator {
    @Override
    public void start(OwnershipListener listener) {
        listener.ownershipChanged();
    }

    @Override
    public boolean owns(int shard) {
        return true;
    }

    @Override
    public String role() {
        return "standalone";
    }

    @Override
    public void close() {}
}
