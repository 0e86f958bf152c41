package dev.autocdc.benchmarks;

import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.AutoCdc;
import dev.autocdc.operators.flink.spec.ControlColumn;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.spec.OutputMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

/**
 * State under churn: an SCD type 2 flow with a short tombstone retention and history retention, on
 * RocksDB, sees every key inserted and deleted once per cycle, for many retention periods. A
 * savepoint is taken every few seconds while it runs, in the canonical format, which writes the
 * live entries only (a native one holds files with deleted entries until compaction): its size is
 * the live state. It swings with the number of keys inside the retention window, which follows the
 * rate (a savepoint pauses the job): bounded state means the mean of the samples in the run's last
 * quarter is no bigger than the mean in its second quarter. Prints {@code figure
 * churn_state_end_over_quarter} (the target: at most 1.1), the two means and the number of
 * retention periods the run spanned.
 *
 * <p>Arguments: {@code --keys} (1,000,000), {@code --cycles} (4), {@code --retention-ms} (10,000),
 * {@code --sample-ms} (5,000).
 */
public final class ChurnBenchmark {
    /** Events emitted so far (parallelism 1, the MiniCluster in this JVM). */
    static final AtomicLong EMITTED = new AtomicLong();

    private ChurnBenchmark() {}

    public static void main(String[] args) throws Exception {
        long keys = Long.parseLong(RunSettings.arg(args, "--keys", "1000000"));
        int cycles = Integer.parseInt(RunSettings.arg(args, "--cycles", "4"));
        long retention = Long.parseLong(RunSettings.arg(args, "--retention-ms", "10000"));
        long sampleEvery = Long.parseLong(RunSettings.arg(args, "--sample-ms", "5000"));
        long total = 2 * keys * cycles;

        Path savepoints = Files.createTempDirectory("autocdc-churn");
        Configuration conf = new Configuration();
        conf.setString("state.backend.type", "rocksdb");
        conf.setString("execution.checkpointing.storage", "filesystem");
        conf.setString("execution.checkpointing.dir", savepoints.toUri().toString());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        flow(env, keys, total, retention);

        long start = System.nanoTime();
        JobClient client = env.executeAsync("churn");
        List<double[]> samples = sample(client, savepoints, sampleEvery, total);
        client.getJobExecutionResult().get();
        double seconds = (System.nanoTime() - start) / 1e9;
        printFigures(samples, seconds, retention, total);
        SavepointFiles.deleteTree(savepoints);
        System.exit(0);
    }

    /**
     * The churning flow: {@code total} events of {@link Churn} over {@code keys} keys into SCD type
     * 2, tombstones and history kept {@code retention} milliseconds.
     */
    private static void flow(
            StreamExecutionEnvironment env, long keys, long total, long retention) {
        RowType input =
                RowType.of(
                        new LogicalType[] {
                            new BigIntType(false),
                            VarCharType.STRING_TYPE,
                            new IntType(false),
                            new BooleanType(false)
                        },
                        new String[] {
                            "id",
                            "v",
                            ControlColumn.SEQUENCE.columnName(),
                            ControlColumn.DELETE.columnName()
                        });
        EngineSpec spec =
                EngineSpec.builder("churn", TargetType.SCD2, input)
                        .keys("id")
                        .outputMode(OutputMode.UPSERT)
                        .tombstoneRetention(Duration.ofMillis(retention))
                        .historyRetention(Duration.ofMillis(retention))
                        .build();
        AutoCdc.apply(
                        env.fromSequence(0, total - 1)
                                .map(new Churn(keys))
                                .returns(InternalTypeInfo.of(input)),
                        spec,
                        InternalTypeInfo.of(spec.targetType()),
                        "auto-cdc-churn")
                .sinkTo(new DiscardingSink<>());
    }

    /**
     * Every {@code sampleEvery} milliseconds until the events are all emitted or the job ended: a
     * canonical savepoint's size, as {fraction of the events emitted then, bytes}.
     */
    private static List<double[]> sample(
            JobClient client, Path savepoints, long sampleEvery, long total) throws Exception {
        List<double[]> samples = new ArrayList<>();
        while (!client.getJobStatus().get().isGloballyTerminalState()) {
            Thread.sleep(sampleEvery);
            double fraction = EMITTED.get() / (double) total;
            if (fraction >= 1) {
                break;
            }
            String savepoint;
            try {
                savepoint =
                        client.triggerSavepoint(
                                        savepoints.toUri().toString(),
                                        SavepointFormatType.CANONICAL)
                                .get(5, TimeUnit.MINUTES);
            } catch (Exception e) { // the job not running yet, or ended meanwhile
                continue;
            }
            Path dir = SavepointFiles.directory(savepoint);
            samples.add(new double[] {fraction, SavepointFiles.sizeOf(dir)});
            SavepointFiles.deleteTree(dir);
            System.err.printf(
                    "churn: %.0f%% of the events, state %.1f MB%n",
                    100 * fraction, samples.get(samples.size() - 1)[1] / 1e6);
        }
        return samples;
    }

    /** The {@code figure} lines run.sh keeps; too few samples in either window is an error. */
    private static void printFigures(
            List<double[]> samples, double seconds, long retention, long total) {
        // the state swings with the keys inside the retention window, which follows the rate:
        // compare means over windows, not single samples
        double second = mean(samples, 0.25, 0.5);
        double last = mean(samples, 0.75, 1.0);
        if (Double.isNaN(second) || Double.isNaN(last)) {
            throw new IllegalStateException(
                    "too few samples (" + samples.size() + "): lower --sample-ms");
        }
        System.out.printf("figure churn_state_end_over_quarter %.3f%n", last / second);
        System.out.printf("figure churn_state_bytes_quarter %.0f%n", second);
        System.out.printf("figure churn_state_bytes_end %.0f%n", last);
        System.out.printf("figure churn_retention_periods %.0f%n", seconds * 1000 / retention);
        System.out.printf("figure churn_events %d%n", total);
    }

    /** The mean size of the samples taken between fractions {@code from} and {@code to}. */
    private static double mean(List<double[]> samples, double from, double to) {
        return samples.stream()
                .filter(s -> s[0] >= from && s[0] < to)
                .mapToDouble(s -> s[1])
                .average()
                .orElse(Double.NaN);
    }

    /** Event {@code i}: cycle {@code i / 2k}, an upsert then a delete of each key in turn. */
    static final class Churn implements MapFunction<Long, RowData> {
        private final long keys;

        Churn(long keys) {
            this.keys = keys;
        }

        @Override
        public RowData map(Long i) {
            EMITTED.incrementAndGet();
            long cycle = i / (2 * keys);
            long within = i % (2 * keys);
            boolean delete = within % 2 == 1;
            return GenericRowData.of(
                    within / 2,
                    StringData.fromString("v" + cycle),
                    (int) (2 * cycle + (delete ? 2 : 1)),
                    delete);
        }
    }
}
