package dev.autocdc.job.cli;

import dev.autocdc.job.plan.LetterCounts;
import dev.autocdc.operators.flink.runtime.EngineMetrics;
import dev.autocdc.operators.flink.snapshot.SnapshotCompletion;
import dev.autocdc.operators.flink.state.CachingStateAccess;
import java.io.PrintStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MetricOptions;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;
import org.apache.flink.metrics.reporter.Scheduled;

/**
 * The progress line of a local run, every few seconds: {@code autocdc: progress: 1,200,000 events
 * in, 1,150,000 target rows written, 12 dead letters, 3,400 late events}, then {@code , 3 keys
 * erased} when a flow erased keys, {@code , 1 snapshot held} when the safety valve of a flow from
 * snapshots holds one, and {@code , state cache 87% hits (12.5 of 256.0 MB)} when a flow caches hot
 * state (the share of reads it answered; the heap its caches hold, as estimated, of their budgets).
 * A Flink metric reporter that the command line adds to a local run's configuration ({@link
 * #configure}); it sums the flows' counters (the engine's {@code num_input_rows}, {@code
 * num_upserted_rows}, {@code num_deleted_rows} and {@code num_late_events}, the dead-letter
 * counters by reason, {@code num_erased_keys}, {@code num_snapshots_held}, and the gauges {@code
 * num_state_cache_hits}, {@code num_state_cache_misses}, {@code state_cache_bytes} and {@code
 * state_cache_budget_bytes}) and writes the line to the command line's error stream, found by an id
 * in the reporter's settings.
 */
public final class ProgressReporter implements MetricReporter, Scheduled {
    /** The reporter's name in {@code metrics.reporter.<name>.*}. */
    static final String NAME = "autocdc_progress";

    /** The reporter's setting that names the stream to write to. */
    static final ConfigOption<String> STREAM_ID =
            ConfigOptions.key("stream-id")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("The id of the command line's stream for the line.");

    private static final Map<String, PrintStream> STREAMS = new ConcurrentHashMap<>();

    /** The reporter of each run, by the id {@link #configure} gave it. */
    private static final Map<String, ProgressReporter> REPORTERS = new ConcurrentHashMap<>();

    private final PrintStream out;
    private final List<Counter> in = new CopyOnWriteArrayList<>();
    private final List<Counter> written = new CopyOnWriteArrayList<>();
    private final List<Counter> deadLetters = new CopyOnWriteArrayList<>();
    private final List<Counter> late = new CopyOnWriteArrayList<>();
    private final List<Counter> held = new CopyOnWriteArrayList<>();
    private final List<Counter> erased = new CopyOnWriteArrayList<>();

    /** The letter and held-snapshot counters, by the accumulator name that counts the same. */
    private final Map<String, List<Counter>> byAccumulator = new ConcurrentHashMap<>();

    private final List<Gauge<?>> cacheHits = new CopyOnWriteArrayList<>();
    private final List<Gauge<?>> cacheMisses = new CopyOnWriteArrayList<>();
    private final List<Gauge<?>> cacheBytes = new CopyOnWriteArrayList<>();
    private final List<Gauge<?>> cacheBudgets = new CopyOnWriteArrayList<>();
    // the cache gauges' last values once their task ended: a gauge reads its cache, so it is
    // dropped rather than kept, which would keep the ended task's cached rows reachable
    private final AtomicLong endedCacheHits = new AtomicLong();
    private final AtomicLong endedCacheMisses = new AtomicLong();

    ProgressReporter(PrintStream out) {
        this.out = out;
    }

    /**
     * Adds the reporter to a local run's configuration, writing to {@code err} every {@code
     * interval} unless the configuration sets the reporter's interval already (a {@code -D}).
     *
     * @return the id to {@link #release} when the run ends
     */
    static String configure(Configuration conf, PrintStream err, Duration interval) {
        String id = UUID.randomUUID().toString();
        STREAMS.put(id, err);
        Configuration reporter = MetricOptions.forReporter(conf, NAME);
        reporter.set(MetricOptions.REPORTER_FACTORY_CLASS, Factory.class.getName());
        if (!reporter.contains(MetricOptions.REPORTER_INTERVAL)) {
            reporter.set(MetricOptions.REPORTER_INTERVAL, interval);
        }
        reporter.set(STREAM_ID, id);
        return id;
    }

    static void release(String id) {
        STREAMS.remove(id);
        REPORTERS.remove(id);
    }

    /** The id of the run whose configuration {@link #configure} set up; null if none. */
    static String idOf(Configuration conf) {
        return MetricOptions.forReporter(conf, NAME).get(STREAM_ID);
    }

    /**
     * The run's letters by flow, kind and reason and its snapshots held, named as the job's
     * accumulators are ({@link LetterCounts#report}): what a stopped run has instead of its result.
     * Empty when no reporter was created.
     */
    static Map<String, Object> counts(String id) {
        ProgressReporter r = id == null ? null : REPORTERS.get(id);
        Map<String, Object> counts = new HashMap<>();
        if (r != null) {
            r.byAccumulator.forEach((name, counters) -> counts.put(name, sum(counters)));
        }
        return counts;
    }

    /** The run's progress line now, or null when no flow has started. */
    static String lineNow(String id) {
        ProgressReporter r = id == null ? null : REPORTERS.get(id);
        return r == null || r.in.isEmpty() ? null : r.line();
    }

    @Override
    public void open(MetricConfig config) {}

    @Override
    public void close() {}

    @Override
    public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
        if (!group.getAllVariables().containsKey("<flow>")) {
            return;
        }
        if (metric instanceof Gauge<?> g) {
            switch (name) {
                case CachingStateAccess.HITS -> cacheHits.add(g);
                case CachingStateAccess.MISSES -> cacheMisses.add(g);
                case CachingStateAccess.BYTES -> cacheBytes.add(g);
                case CachingStateAccess.BUDGET -> cacheBudgets.add(g);
                default -> {}
            }
            return;
        }
        if (!(metric instanceof Counter c)) {
            return;
        }
        Map<String, String> variables = group.getAllVariables();
        String flow = variables.get("<flow>");
        String reason = variables.get("<reason>");
        switch (name) {
            case EngineMetrics.INPUT_ROWS -> in.add(c);
            case EngineMetrics.UPSERTED_ROWS, EngineMetrics.DELETED_ROWS -> written.add(c);
            case EngineMetrics.ERASED_KEYS -> erased.add(c);
            case LetterCounts.LetterCounter.DEAD_COUNTER -> {
                if (reason != null) { // every dead letter of the flow, the engine's included
                    deadLetters.add(c);
                    count(LetterCounts.accumulator(flow, LetterCounts.DEAD, reason), c);
                }
            }
            case LetterCounts.LetterCounter.LATE_COUNTER -> {
                late.add(c);
                count(LetterCounts.accumulator(flow, LetterCounts.LATE, reason), c);
            }
            case SnapshotCompletion.HELD_METRIC -> {
                held.add(c);
                count(SnapshotCompletion.heldAccumulator(flow), c);
            }
            default -> {}
        }
    }

    private void count(String accumulator, Counter c) {
        byAccumulator.computeIfAbsent(accumulator, a -> new CopyOnWriteArrayList<>()).add(c);
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {
        // counters are kept, so that the line sums the work of tasks that have ended too
        if (metric instanceof Gauge<?> g) {
            if (cacheHits.remove(g)) {
                endedCacheHits.addAndGet(value(g));
            } else if (cacheMisses.remove(g)) {
                endedCacheMisses.addAndGet(value(g));
            } else {
                cacheBytes.remove(g); // the memory gauges: an ended task holds no memory
                cacheBudgets.remove(g);
            }
        }
    }

    @Override
    public void report() {
        if (in.isEmpty()) {
            return; // no flow has started yet
        }
        out.println(line());
    }

    private String line() {
        return line(sum(in), sum(written), sum(deadLetters), sum(late))
                + erased(sum(erased))
                + held(sum(held))
                + cacheShare(
                        endedCacheHits.get() + read(cacheHits),
                        endedCacheMisses.get() + read(cacheMisses),
                        read(cacheBytes),
                        read(cacheBudgets));
    }

    static String line(long in, long written, long deadLetters, long late) {
        return String.format(
                Locale.ROOT,
                "autocdc: progress: %,d events in, %,d target rows written, %,d dead letter%s,"
                        + " %,d late event%s",
                in,
                written,
                deadLetters,
                deadLetters == 1 ? "" : "s",
                late,
                late == 1 ? "" : "s");
    }

    /** {@code ", 3 keys erased"} when a flow erased any; else empty. */
    static String erased(long keys) {
        return keys == 0 ? "" : ", " + LetterCounts.count(keys, "key") + " erased";
    }

    /** {@code ", 1 snapshot held"} when the safety valve holds any; else empty. */
    static String held(long snapshots) {
        return snapshots == 0 ? "" : ", " + LetterCounts.count(snapshots, "snapshot") + " held";
    }

    /**
     * The state cache's share of reads it answered, rounded down (so 100% means no miss at all),
     * and the heap its running caches hold of their budgets: {@code ", state cache 87% hits (12.5
     * of 256.0 MB)"}; empty when no flow caches or nothing was read yet.
     */
    static String cacheShare(long hits, long misses, long bytes, long budget) {
        long reads = hits + misses;
        if (reads == 0) {
            return "";
        }
        String memory =
                budget == 0
                        ? ""
                        : String.format(
                                Locale.ROOT,
                                " (%.1f of %.1f MB)",
                                bytes / 1048576.0,
                                budget / 1048576.0);
        return String.format(Locale.ROOT, ", state cache %d%% hits", hits * 100 / reads) + memory;
    }

    private static long read(List<Gauge<?>> gauges) {
        long total = 0;
        for (Gauge<?> g : gauges) {
            total += value(g);
        }
        return total;
    }

    private static long value(Gauge<?> g) {
        return g.getValue() instanceof Number n ? n.longValue() : 0;
    }

    private static long sum(List<Counter> counters) {
        long total = 0;
        for (Counter c : counters) {
            total += c.getCount();
        }
        return total;
    }

    /** Flink creates the reporter from the configuration, through this factory. */
    public static final class Factory implements MetricReporterFactory {
        @Override
        public MetricReporter createMetricReporter(java.util.Properties properties) {
            String id = properties.getProperty(STREAM_ID.key(), "");
            PrintStream out = STREAMS.get(id);
            ProgressReporter reporter = new ProgressReporter(out == null ? System.err : out);
            if (out != null) {
                REPORTERS.put(id, reporter);
            }
            return reporter;
        }
    }
}
