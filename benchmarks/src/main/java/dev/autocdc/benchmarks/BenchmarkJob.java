package dev.autocdc.benchmarks;

import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.AutoCdc;
import dev.autocdc.operators.flink.spec.ControlColumn;
import dev.autocdc.operators.flink.spec.EngineOptions;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.spec.OutputMode;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.bridge.java.StreamStatementSet;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

/**
 * One benchmark run in its own JVM: a generated workload through one variant at parallelism 1 on a
 * local Flink, into a discarding sink, then a stop with a native savepoint. Prints one {@code
 * result} line: the time the workload took, events per second (overall and over the first and last
 * fifth), the JVM's peak resident memory, the savepoint's size (the state on disk after the last
 * event), the versions the workload creates, the size of a target row in Flink's binary row format,
 * and the bytes the keyed operator's thread allocated per event over the last four fifths of the
 * events ({@link Progress#operatorAllocatedBytes}; a figure that does not drift between runs as
 * rates do; for {@code snapshot_scd2}, whose rows wait for their snapshot, what the thread
 * allocated while the source ran), and the CPU time those threads used per event over the same
 * events ({@link Progress#operatorCpuNanos}).
 *
 * <p>Variants: {@code passthrough} (keyBy and map: the limit), {@code sql_dedup} and {@code
 * sql_dedup_minibatch} (Flink SQL keep-last-row deduplication on a rowtime made from the sequence,
 * into a blackhole sink), {@code naive_scd2} (all versions in one ListState, rewritten per event),
 * and the engine: {@code scd1}, {@code scd2}, {@code bitemporal} (upsert mode, no -U rows); on W6,
 * {@code snapshot_scd2}: a flow from snapshots, whose run ends when the last snapshot's changes
 * leave the engine.
 */
public final class BenchmarkJob {

    private BenchmarkJob() {}

    public static void main(String[] args) throws Exception {
        String variant = arg(args, "--variant", "scd2");
        String backend = arg(args, "--backend", "rocksdb");
        Workload workload =
                Workload.named(
                        arg(args, "--workload", "W1"), Long.parseLong(arg(args, "--scale", "1")));
        long events = Long.parseLong(arg(args, "--events", String.valueOf(workload.events)));
        // the write-back cache of hot state (EngineSpec#stateCacheKeys): the product's default
        // unless given; the *_cached variants hold every key of the workload
        int cacheKeys =
                Integer.parseInt(
                        arg(
                                args,
                                "--cache-keys",
                                String.valueOf(EngineOptions.STATE_CACHE_KEYS.defaultValue())));
        Workload w = new Workload(workload.name, workload.keys, events);
        if (variant.startsWith("kafka_")) {
            KafkaBenchmark.run(variant, w);
            System.exit(0);
        }

        Path savepoints = Files.createTempDirectory("autocdc-bench-savepoint");
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
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(
                    "--conf")) { // any Flink option, key=value, for experiments (run.sh passes
                // none)
                String[] kv = args[i + 1].split("=", 2);
                conf.setString(kv[0], kv[1]);
            }
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        boolean bitemporal = variant.startsWith("bitemporal");
        boolean snapshots = variant.equals("snapshot_scd2");
        RowType inputType = snapshots ? snapshotInputType() : inputType(bitemporal);
        // The source does not end by itself: after the workload it idles until the driver stops the
        // job with a savepoint, whose size is the state on disk after the last event.
        DataStream<RowData> source =
                env.fromSequence(0, Long.MAX_VALUE)
                        .flatMap(new Generate(w, bitemporal, snapshots))
                        .returns(InternalTypeInfo.of(inputType))
                        .name("generate " + w.name);
        if (snapshots) { // per snapshot: just below it, at it after its end row
            source =
                    source.assignTimestampsAndWatermarks(
                            WatermarkStrategy.forGenerator(c -> new SnapshotWatermarks()));
        }

        switch (variant) {
            case "passthrough":
                source.keyBy(r -> r.getLong(0))
                        .map(r -> r)
                        .returns(InternalTypeInfo.of(inputType))
                        .sinkTo(new DiscardingSink<>());
                break;
            case "naive_scd2":
                source.keyBy(r -> r.getLong(0))
                        .process(new NaiveScd2())
                        .returns(Types.LONG)
                        .sinkTo(new DiscardingSink<>());
                break;
            case "sql_dedup":
            case "sql_dedup_minibatch":
                sqlDedup(env, source, variant.endsWith("minibatch"));
                break;
            case "scd1":
            case "scd2":
            case "bitemporal":
            case "scd1_cached":
            case "scd2_cached":
            case "bitemporal_cached":
                {
                    TargetType type =
                            variant.startsWith("scd1")
                                    ? TargetType.SCD1
                                    : variant.startsWith("scd2")
                                            ? TargetType.SCD2
                                            : TargetType.BITEMPORAL;
                    if (variant.endsWith("_cached")
                            && !Arrays.asList(args).contains("--cache-keys")) {
                        cacheKeys = (int) w.keys; // a cache that holds every key of the workload
                    }
                    EngineSpec spec =
                            EngineSpec.builder(variant, type, inputType)
                                    .keys("k")
                                    .outputMode(OutputMode.UPSERT)
                                    .stateCacheKeys(cacheKeys)
                                    .build();
                    AutoCdc.apply(
                                    source,
                                    spec,
                                    InternalTypeInfo.of(spec.targetType()),
                                    "auto-cdc-" + variant)
                            .sinkTo(new DiscardingSink<>());
                    break;
                }
            case "snapshot_scd2":
                {
                    EngineSpec spec =
                            EngineSpec.builder(variant, TargetType.SCD2, inputType)
                                    .keys("k")
                                    .fromSnapshot()
                                    .outputMode(OutputMode.UPSERT)
                                    .build();
                    AutoCdc.apply(
                                    source,
                                    spec,
                                    InternalTypeInfo.of(spec.targetType()),
                                    "auto-cdc-" + variant)
                            .map(new LastOutput())
                            .returns(InternalTypeInfo.of(spec.targetType()))
                            .sinkTo(new DiscardingSink<>());
                    break;
                }
            default:
                throw new IllegalArgumentException("unknown variant " + variant);
        }
        JobClient client = env.executeAsync(variant);
        while (Progress.end == 0) {
            if (client.getJobStatus().get().isGloballyTerminalState()) {
                client.getJobExecutionResult().get(); // throws the job's failure
                throw new IllegalStateException("the job ended before the workload did");
            }
            Thread.sleep(20);
        }
        if (snapshots) {
            // rows wait until their snapshot is complete: the run ends with the last snapshot's
            // changes, after the source's last row
            long seen = 0;
            while (Progress.lastOutput != seen || System.nanoTime() - seen < 2_000_000_000L) {
                seen = Progress.lastOutput;
                Thread.sleep(100);
            }
            Progress.end = Math.max(Progress.end, seen);
        }
        String savepoint =
                client.stopWithSavepoint(
                                false, savepoints.toUri().toString(), SavepointFormatType.NATIVE)
                        .get(10, TimeUnit.MINUTES);
        long stateBytes =
                sizeOf(
                        Path.of(
                                URI.create(
                                        savepoint.startsWith("file:")
                                                ? savepoint
                                                : "file://" + savepoint)));
        deleteTree(savepoints);

        // rates at the source, which the engine's back-pressure throttles: it follows the engine up
        // to the records in flight (a few network buffers); parallelism 1, so one JVM-wide probe
        double seconds = (Progress.end - Progress.start) / 1e9;
        double first = (events / 5) * 1e9 / Math.max(1, Progress.fifth - Progress.start);
        double last = (events / 5) * 1e9 / Math.max(1, Progress.end - Progress.fourFifths);
        long versions = 0;
        for (long i = 0; i < events; i++) {
            versions += w.isDelete(i) ? 0 : 1; // every upsert of the workloads starts a version
        }
        System.out.printf(
                "result variant=%s backend=%s workload=%s events=%d millis=%.0f events_per_s=%.0f"
                    + " peak_rss_mb=%d first_fifth_per_s=%.0f last_fifth_per_s=%.0f state_bytes=%d"
                    + " versions=%d row_bytes=%d alloc_bytes_per_event=%d cpu_ns_per_event=%d%n",
                variant,
                backend,
                w.name,
                events,
                seconds * 1000,
                events / seconds,
                peakRssMb(),
                first,
                last,
                stateBytes,
                versions,
                targetRowBytes(w),
                (Progress.allocatedAtEnd - Progress.allocatedAtFifth) / (events - events / 5),
                (Progress.cpuAtEnd - Progress.cpuAtFifth) / (events - events / 5));
        System.exit(0);
    }

    /**
     * The SCD2 target row of the workload's first event in Flink's binary row format (k, a, b, c,
     * __START_AT, __END_AT).
     */
    static int targetRowBytes(Workload w) {
        RowType target =
                RowType.of(
                        new LogicalType[] {
                            new BigIntType(false),
                            new IntType(),
                            VarCharType.STRING_TYPE,
                            new BigIntType(),
                            new BigIntType(),
                            new BigIntType()
                        },
                        new String[] {"k", "a", "b", "c", "__START_AT", "__END_AT"});
        GenericRowData row =
                GenericRowData.of(
                        w.key(0),
                        w.intPayload(0),
                        StringData.fromString(w.stringPayload(0)),
                        w.longPayload(0),
                        w.sequence(0),
                        null);
        return new RowDataSerializer(target).toBinaryRow(row).getSizeInBytes();
    }

    static long sizeOf(Path dir) throws IOException {
        try (var files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
        }
    }

    static void deleteTree(Path dir) throws IOException {
        try (var files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }

    /** W6 for the snapshot flow: k, a, b, c, __seq (the snapshot), __snapshot_end. */
    static RowType snapshotInputType() {
        return RowType.of(
                new LogicalType[] {
                    new BigIntType(false),
                    new IntType(),
                    VarCharType.STRING_TYPE,
                    new BigIntType(),
                    new BigIntType(false),
                    new BooleanType(false)
                },
                new String[] {
                    "k",
                    "a",
                    "b",
                    "c",
                    ControlColumn.SEQUENCE.columnName(),
                    ControlColumn.SNAPSHOT_END.columnName()
                });
    }

    static RowType inputType(boolean bitemporal) {
        List<LogicalType> types =
                new ArrayList<>(
                        List.of(
                                new BigIntType(false),
                                new IntType(),
                                VarCharType.STRING_TYPE,
                                new BigIntType(),
                                new BigIntType(false)));
        List<String> names =
                new ArrayList<>(List.of("k", "a", "b", "c", ControlColumn.SEQUENCE.columnName()));
        if (bitemporal) {
            types.add(new BigIntType(false));
            names.add(ControlColumn.SYSTEM_SEQUENCE.columnName());
        }
        types.add(new BooleanType(false));
        names.add(ControlColumn.DELETE.columnName());
        return RowType.of(types.toArray(new LogicalType[0]), names.toArray(new String[0]));
    }

    private static void sqlDedup(
            StreamExecutionEnvironment env, DataStream<RowData> source, boolean miniBatch) {
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        if (miniBatch) {
            tEnv.getConfig().getConfiguration().setString("table.exec.mini-batch.enabled", "true");
            tEnv.getConfig()
                    .getConfiguration()
                    .setString("table.exec.mini-batch.allow-latency", "1 s");
            tEnv.getConfig().getConfiguration().setString("table.exec.mini-batch.size", "5000");
        }
        tEnv.createTemporaryView(
                "src",
                tEnv.fromDataStream(
                        source,
                        Schema.newBuilder()
                                .column("k", "BIGINT NOT NULL")
                                .column("a", "INT")
                                .column("b", "STRING")
                                .column("c", "BIGINT")
                                .column(ControlColumn.SEQUENCE.columnName(), "BIGINT NOT NULL")
                                .column(ControlColumn.DELETE.columnName(), "BOOLEAN NOT NULL")
                                .columnByExpression(
                                        "rt",
                                        "TO_TIMESTAMP_LTZ(`"
                                                + ControlColumn.SEQUENCE.columnName()
                                                + "`, 3)")
                                .watermark("rt", "rt")
                                .build()));
        // a primary key on k: an upsert sink, so the deduplication emits upserts without -U rows,
        // as the engine does
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE sink (k BIGINT, a INT, b STRING, c BIGINT, PRIMARY KEY (k)"
                        + " NOT ENFORCED) WITH ('connector' = 'blackhole')");
        StreamStatementSet set = tEnv.createStatementSet();
        set.addInsertSql(
                "INSERT INTO sink SELECT k, a, b, c FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY"
                        + " k ORDER BY rt DESC) AS rn FROM src) WHERE rn = 1");
        set.attachAsDataStream();
    }

    static long peakRssMb() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024;
                }
            }
        } catch (Exception ignored) {
            // not Linux
        }
        return -1;
    }

    static String arg(String[] args, String name, String fallback) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        return fallback;
    }

    /**
     * When the source passed the start, one fifth and four fifths of the events, and when it ended.
     */
}
