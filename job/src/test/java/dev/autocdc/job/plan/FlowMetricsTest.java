package dev.autocdc.job.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.job.flow.FlowScript;
import dev.autocdc.operators.flink.runtime.EngineMetrics;
import dev.autocdc.operators.flink.snapshot.SnapshotApplyOperator;
import dev.autocdc.operators.flink.snapshot.SnapshotCompletion;
import dev.autocdc.operators.flink.state.CachingStateAccess;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MetricOptions;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A flow's metrics as a running job reports them (issue 40, point 8): {@value
 * EngineMetrics#DEAD_LETTERS} counts every dead letter of the flow, whichever step made it, and the
 * metrics table of docs/deploy.md names every metric the code registers, each a constant.
 */
class FlowMetricsTest {
    @TempDir Path dir;

    /** The counters a job registered: name, the group's variables, the counter. */
    record Registered(String name, Map<String, String> variables, Counter counter) {}

    static final List<Registered> COUNTERS = new CopyOnWriteArrayList<>();

    /**
     * Keeps every counter registered in a group of a flow; Flink finds the factory as a service
     * (test resources, META-INF/services).
     */
    public static final class Collecting implements MetricReporter, MetricReporterFactory {
        @Override
        public MetricReporter createMetricReporter(Properties properties) {
            return new Collecting();
        }

        @Override
        public void open(MetricConfig config) {}

        @Override
        public void close() {}

        @Override
        public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
            if (metric instanceof Counter c && group.getAllVariables().containsKey("<flow>")) {
                COUNTERS.add(new Registered(name, group.getAllVariables(), c));
            }
        }

        @Override
        public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {}
    }

    /**
     * A record that does not parse (the decoder's letter) and rows with no key or sequence (the
     * engine input's letters, made before the keyed exchange so that they keep their bytes): before
     * issue 40, {@value EngineMetrics#DEAD_LETTERS} counted only the engine's own letters and read
     * 0 here, while the counters by reason read 3.
     */
    @Test
    void numDeadLettersCountsTheDecodersAndTheEngineInputsLetters() throws Exception {
        Path feed = dir.resolve("feed.json");
        Files.write(
                feed,
                List.of(
                        "{\"id\": 1, \"name\": \"a\", \"seq\": 1}",
                        "{not json",
                        "{\"id\": null, \"name\": \"b\", \"seq\": 2}",
                        "{\"id\": 2, \"name\": \"c\", \"seq\": null}"));
        String flow =
                """
                CREATE TABLE feed (id INT, name STRING, seq BIGINT)
                WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');
                CREATE OR REFRESH STREAMING TABLE t;
                CREATE FLOW counted AS AUTO CDC INTO t FROM STREAM(feed) KEYS (id)
                SEQUENCE BY seq COLUMNS * EXCEPT (seq);
                """
                        .formatted(feed);
        Configuration conf = new Configuration();
        MetricOptions.forReporter(conf, "collect")
                .set(MetricOptions.REPORTER_FACTORY_CLASS, Collecting.class.getName());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        new FlowJob(tEnv, new FlowPlanner(tEnv).plan(FlowScript.parse(flow))).attach();
        env.execute("dead-letter metrics");

        assertThat(sum(false)).as("by reason").isEqualTo(3);
        assertThat(sum(true)).as(EngineMetrics.DEAD_LETTERS).isEqualTo(3);
    }

    /**
     * The flow's dead-letter counters, per flow or by reason, summed over operators and subtasks.
     */
    private static long sum(boolean perFlow) {
        long total = 0;
        for (Registered r : COUNTERS) {
            if (r.name().equals(EngineMetrics.DEAD_LETTERS)
                    && "counted".equals(r.variables().get("<flow>"))
                    && perFlow != r.variables().containsKey("<reason>")) {
                total += r.counter().getCount();
            }
        }
        return total;
    }

    /**
     * Every metric name the code registers is a constant of its class, and the metrics table has a
     * row for each and for nothing else (counters by reason as Prometheus names them, {@code
     * reason_<name>}).
     */
    @Test
    void theMetricsTableNamesEveryRegisteredMetric() throws Exception {
        Set<String> registered = new TreeSet<>();
        for (Field f : EngineMetrics.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
                registered.add((String) f.get(null));
            }
        }
        registered.addAll(
                List.of(
                        "reason_" + LetterCounts.LetterCounter.DEAD_COUNTER,
                        "reason_" + LetterCounts.LetterCounter.LATE_COUNTER,
                        LetterCounts.LetterCounter.DEAD_RATE,
                        LetterCounts.LetterCounter.LATE_RATE,
                        SnapshotCompletion.HELD_METRIC,
                        SnapshotApplyOperator.SCANS,
                        SnapshotApplyOperator.SCANNED_KEYS,
                        CachingStateAccess.HITS,
                        CachingStateAccess.MISSES,
                        CachingStateAccess.BUDGET,
                        CachingStateAccess.BYTES,
                        CachingStateAccess.KEYS));
        assertThat(documented()).isEqualTo(registered);
    }

    /** The names in the first column of docs/deploy.md's metrics table. */
    private static Set<String> documented() throws IOException {
        String docs = Files.readString(Path.of("../docs/deploy.md"), StandardCharsets.UTF_8);
        int start = docs.indexOf("\n## Metrics\n");
        int end = docs.indexOf("\n## ", start + 1);
        String section = docs.substring(start, end < 0 ? docs.length() : end);
        Set<String> names = new TreeSet<>();
        Pattern name = Pattern.compile("`([a-z_]+)`");
        for (String line : section.lines().toList()) {
            if (line.startsWith("| `")) {
                // the first cell, without its remarks: `num_dead_letters` (group `flow`)
                String cell = line.substring(0, line.indexOf(" |", 2)).replaceAll("\\(.*?\\)", "");
                Matcher m = name.matcher(cell);
                while (m.find()) {
                    names.add(m.group(1));
                }
            }
        }
        return names;
    }

    /** No metric is registered under a literal name: each is a constant the table test reads. */
    @Test
    void metricsAreRegisteredUnderConstants() throws IOException {
        Pattern literal = Pattern.compile("\\.(counter|gauge|meter|histogram)\\(\\s*\"");
        List<String> offending = new ArrayList<>();
        for (String root :
                List.of(
                        "src/main/java",
                        "../operators/flink/src/main/java",
                        "../operators/core/src/main/java",
                        "../table-udfs/src/main/java")) {
            try (Stream<Path> files = Files.walk(Path.of(root))) {
                for (Path p : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                    if (literal.matcher(Files.readString(p)).find()) {
                        offending.add(p.toString());
                    }
                }
            }
        }
        assertThat(offending).isEmpty();
    }
}
