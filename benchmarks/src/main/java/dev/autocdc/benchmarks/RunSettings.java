package dev.autocdc.benchmarks;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.Configuration;

/**
 * The arguments of one {@link BenchmarkJob} run, and the Flink configuration it runs with.
 * Arguments: {@code --variant} (scd2), {@code --backend} (rocksdb), {@code --workload} (W1) at
 * {@code --scale} (1: full size), {@code --events} (the workload's), {@code --cache-keys} (the
 * product's default; a {@code *_cached} variant without it caches every key of the workload), and
 * any number of {@code --conf key=value}: any Flink option, for experiments (run.sh passes none).
 */
final class RunSettings {
    final String variant;
    final String backend;

    /** The workload at its scale, with the run's number of events. */
    final Workload workload;

    final long events;

    /**
     * The write-back cache of hot state (EngineSpec.Builder#stateCacheKeys), in keys; null: the
     * product's default (bounded by the memory budget).
     */
    final Integer cacheKeys;

    /** The {@code --conf} values, key=value, in order. */
    private final List<String> conf;

    private RunSettings(
            String variant,
            String backend,
            Workload workload,
            long events,
            Integer cacheKeys,
            List<String> conf) {
        this.variant = variant;
        this.backend = backend;
        this.workload = workload;
        this.events = events;
        this.cacheKeys = cacheKeys;
        this.conf = conf;
    }

    static RunSettings read(String[] args) {
        String variant = arg(args, "--variant", "scd2");
        String backend = arg(args, "--backend", "rocksdb");
        Workload workload =
                Workload.named(
                        arg(args, "--workload", "W1"), Long.parseLong(arg(args, "--scale", "1")));
        long events = Long.parseLong(arg(args, "--events", String.valueOf(workload.events)));
        // the write-back cache of hot state: the product's default (bounded by its memory
        // budget) unless given; the *_cached variants hold every key of the workload
        String given = arg(args, "--cache-keys", null);
        Integer cacheKeys = given == null ? null : Integer.valueOf(given);
        if (variant.endsWith("_cached") && given == null) {
            cacheKeys = (int) workload.keys;
        }
        List<String> conf = new ArrayList<>();
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals("--conf")) {
                conf.add(args[i + 1]);
            }
        }
        return new RunSettings(
                variant,
                backend,
                new Workload(workload.name, workload.keys, events),
                events,
                cacheKeys,
                conf);
    }

    /** Whether the variant is the flow from snapshots ({@code snapshot_scd2}, on W6). */
    boolean snapshots() {
        return variant.equals("snapshot_scd2");
    }

    /**
     * The run's Flink configuration: the backend, parallelism 1, savepoints as files under {@code
     * savepoints}, then the {@code --conf} values over it.
     */
    Configuration flinkConfiguration(Path savepoints) {
        Configuration conf = new Configuration();
        conf.setString("state.backend.type", backend);
        conf.setString("parallelism.default", "1");
        conf.setString(
                "execution.checkpointing.storage",
                "filesystem"); // the savepoint's files, not the JobManager's heap
        conf.setString("execution.checkpointing.dir", savepoints.toUri().toString());
        // every variant as the CLI runs a flow (AutoCdcCli.reuseObjectsUnlessConfigured): no copy
        // of each record at each chained hop; --conf pipeline.object-reuse=false measures without
        conf.setString("pipeline.object-reuse", "true");
        // RocksDB's cache as large as a slot of k8s/autocdc-deployment.yaml has (a 4096m
        // TaskManager, 2 slots: 0.4 of its 3,430 MB of Flink memory is managed, 686 MB a slot),
        // not the local default of 128 MB, which holds the baseline's 19 MB of state but not a
        // history's 250 MB; --conf taskmanager.memory.managed.size=128m measures with the default
        conf.setString("taskmanager.memory.managed.size", "686m");
        for (String option : this.conf) {
            String[] kv = option.split("=", 2);
            conf.setString(kv[0], kv[1]);
        }
        return conf;
    }

    /** The value after {@code name} in {@code args}, or {@code fallback}. */
    static String arg(String[] args, String name, String fallback) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        return fallback;
    }
}
