package dev.autocdc.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

/**
 * One benchmark run in its own JVM: a generated workload through one variant ({@link
 * VariantPipeline}; arguments: {@link RunSettings}) at parallelism 1 on a local Flink, into a
 * discarding sink, then a stop with a native savepoint. Prints one {@code result} line: the time
 * the workload took, events per second (overall and over the first and last fifth), the JVM's peak
 * resident memory, the savepoint's size (the state on disk after the last event), the versions the
 * workload creates, the size of a target row in Flink's binary row format, and the bytes the keyed
 * operator's thread allocated per event over the last four fifths of the events ({@link
 * Progress#operatorAllocatedBytes}; a figure that does not drift between runs as rates do; for
 * {@code snapshot_scd2}, whose rows wait for their snapshot, what the thread allocated while the
 * source ran), and the CPU time those threads used per event over the same events ({@link
 * Progress#operatorCpuNanos}). A {@code kafka_} variant is {@link KafkaBenchmark}'s.
 */
public final class BenchmarkJob {

    private BenchmarkJob() {}

    public static void main(String[] args) throws Exception {
        RunSettings run = RunSettings.read(args);
        if (run.variant.startsWith("kafka_")) {
            KafkaBenchmark.run(run.variant, run.workload);
            System.exit(0);
        }

        Path savepoints = Files.createTempDirectory("autocdc-bench-savepoint");
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(
                        run.flinkConfiguration(savepoints));
        env.setParallelism(1);
        VariantPipeline.build(env, run);
        JobClient client = env.executeAsync(run.variant);
        awaitLastEvent(client, run.snapshots());
        String savepoint =
                client.stopWithSavepoint(
                                false, savepoints.toUri().toString(), SavepointFormatType.NATIVE)
                        .get(10, TimeUnit.MINUTES);
        long stateBytes = SavepointFiles.sizeOf(SavepointFiles.directory(savepoint));
        SavepointFiles.deleteTree(savepoints);
        printResult(run, stateBytes);
        System.exit(0);
    }

    /**
     * Waits until the source passed its last event ({@link Progress#end}); from snapshots, until
     * the last snapshot's changes left the engine as well. Throws the job's failure if it ended
     * before.
     */
    private static void awaitLastEvent(JobClient client, boolean snapshots) throws Exception {
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
    }

    /** The {@code result} line run.sh reads, its fields in this order. */
    private static void printResult(RunSettings run, long stateBytes) {
        long events = run.events;
        Workload w = run.workload;
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
                run.variant,
                run.backend,
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
    }

    /**
     * The SCD2 target row of the workload's first event in Flink's binary row format (k, a, b, c,
     * __START_AT, __END_AT).
     */
    private static int targetRowBytes(Workload w) {
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
}
