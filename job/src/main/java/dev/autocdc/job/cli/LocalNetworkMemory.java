package dev.autocdc.job.cli;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;

/**
 * Network memory for a run on the embedded Flink, sized for the parallelism asked for. Flink's
 * local default (64 MiB) holds an all-to-all exchange of about 30 subtasks; {@code --parallelism
 * 64} failed after 15 s on "insufficient number of network buffers". A keyed exchange of p subtasks
 * takes about {@code 2p² + 9p} buffers (two per channel and eight floating per input gate, one per
 * subpartition and one more per output); a flow has one such exchange. With 25% headroom, p = 64
 * and one flow take 343 MiB (measured: 300 MiB suffice, 64 MiB do not). A setting of the user's
 * ({@code taskmanager.memory.network.min} or {@code .max}) is left alone; on a cluster these
 * options are the task managers' and have no effect here.
 */
final class LocalNetworkMemory {
    private static final MemorySize FLINK_DEFAULT = MemorySize.ofMebiBytes(64);

    private LocalNetworkMemory() {}

    /** The network memory for {@code flows} flows at parallelism {@code p}, at least Flink's. */
    static MemorySize forParallelism(int p, int flows) {
        long buffers = (long) Math.max(1, flows) * (2L * p * p + 9L * p);
        long bytes = buffers * TaskManagerOptions.MEMORY_SEGMENT_SIZE.defaultValue().getBytes();
        return new MemorySize(Math.max(FLINK_DEFAULT.getBytes(), bytes + bytes / 4));
    }

    /** Sets both bounds of the network memory in {@code conf}, unless the user set one. */
    static void size(Configuration conf, int flows) {
        if (conf.contains(TaskManagerOptions.NETWORK_MEMORY_MIN)
                || conf.contains(TaskManagerOptions.NETWORK_MEMORY_MAX)) {
            return;
        }
        int p =
                conf.getOptional(CoreOptions.DEFAULT_PARALLELISM)
                        .orElse(Runtime.getRuntime().availableProcessors());
        MemorySize size = forParallelism(p, flows);
        if (size.getBytes() > FLINK_DEFAULT.getBytes()) {
            conf.set(TaskManagerOptions.NETWORK_MEMORY_MIN, size);
            conf.set(TaskManagerOptions.NETWORK_MEMORY_MAX, size);
        }
    }
}
