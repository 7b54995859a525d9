package io.delayqueue.queue.coordination;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class CoordinationViewTest {

    @Test
    void cluster_mode_assigns_shard_s_to_the_s_mod_n_th_member_in_sorted_order() {
        CoordinationView view = CoordinationView.cluster("b", "member", "CONNECTED", List.of("a", "b", "c"), 8);
        assertThat(view.mode()).isEqualTo("cluster");
        assertThat(view.instances())
                .containsExactly(
                        new CoordinationView.Instance("a", "member", List.of(0, 3, 6)),
                        new CoordinationView.Instance("b", "member", List.of(1, 4, 7)),
                        new CoordinationView.Instance("c", "member", List.of(2, 5)));
    }

    @Test
    void an_instance_not_among_the_members_is_listed_without_shards() {
        CoordinationView view = CoordinationView.cluster("d", "disconnected", "SUSPENDED", List.of("a"), 2);
        assertThat(view.zooKeeper()).isEqualTo("SUSPENDED");
        assertThat(view.instances())
                .containsExactly(
                        new CoordinationView.Instance("a", "member", List.of(0, 1)),
                        new CoordinationView.Instance("d", "disconnected", List.of()));
    }
}
