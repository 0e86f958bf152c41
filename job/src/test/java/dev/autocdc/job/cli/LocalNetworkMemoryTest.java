package dev.autocdc.job.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.junit.jupiter.api.Test;

/** The sizing by hand: 2p² + 9p buffers of 32 KiB per flow, plus a quarter. */
class LocalNetworkMemoryTest {
    @Test
    void sizedForTheParallelismAskedFor() {
        // 64: 2 * 4096 + 576 = 8768 buffers = 274 MiB, + 25% = 342.5 MiB
        assertThat(LocalNetworkMemory.forParallelism(64, 1))
                .isEqualTo(new MemorySize(8768L * 32768 * 5 / 4));
        assertThat(LocalNetworkMemory.forParallelism(64, 2).getBytes())
                .isEqualTo(2 * 8768L * 32768 * 5 / 4);
        assertThat(LocalNetworkMemory.forParallelism(4, 1)).isEqualTo(MemorySize.ofMebiBytes(64));
    }

    @Test
    void aUsersSettingIsLeftAlone() {
        Configuration conf = new Configuration();
        conf.setString("parallelism.default", "64");
        conf.setString("taskmanager.memory.network.max", "1g");
        LocalNetworkMemory.size(conf, 1);
        assertThat(conf.contains(TaskManagerOptions.NETWORK_MEMORY_MIN)).isFalse();
        Configuration asked = new Configuration();
        asked.setString("parallelism.default", "64");
        LocalNetworkMemory.size(asked, 1);
        assertThat(asked.get(TaskManagerOptions.NETWORK_MEMORY_MAX))
                .isEqualTo(LocalNetworkMemory.forParallelism(64, 1));
    }
}
