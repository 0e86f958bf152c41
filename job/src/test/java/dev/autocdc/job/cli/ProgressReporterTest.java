package dev.autocdc.job.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.junit.jupiter.api.Test;

/** The progress line, summed from the metrics a flow registers (golden lines typed by hand). */
class ProgressReporterTest {
    /** A metric group of the flow {@code name}, as the engine registers its metrics under. */
    private static UnregisteredMetricsGroup flow(String name) {
        return new UnregisteredMetricsGroup() {
            @Override
            public Map<String, String> getAllVariables() {
                return Map.of("<flow>", name, "<subtask_index>", "0");
            }
        };
    }

    @Test
    void sumsTheFlowsCountersAndTheCacheGaugesOfEverySubtask() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ProgressReporter reporter =
                new ProgressReporter(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        SimpleCounter in = new SimpleCounter();
        SimpleCounter upserted = new SimpleCounter();
        SimpleCounter deleted = new SimpleCounter();
        SimpleCounter elsewhere = new SimpleCounter(); // not in a flow's group: not summed
        reporter.notifyOfAddedMetric(in, "num_input_rows", flow("a"));
        reporter.notifyOfAddedMetric(upserted, "num_upserted_rows", flow("a"));
        reporter.notifyOfAddedMetric(deleted, "num_deleted_rows", flow("a"));
        reporter.notifyOfAddedMetric(elsewhere, "num_input_rows", new UnregisteredMetricsGroup());

        reporter.report();
        in.inc(1_200_000);
        upserted.inc(1_000_000);
        deleted.inc(150_000);
        elsewhere.inc(7);
        reporter.report();
        // two subtasks' caches: 870 of 1,000 reads answered
        reporter.notifyOfAddedMetric((Gauge<Long>) () -> 500L, "num_state_cache_hits", flow("a"));
        reporter.notifyOfAddedMetric((Gauge<Long>) () -> 100L, "num_state_cache_misses", flow("a"));
        reporter.notifyOfAddedMetric((Gauge<Long>) () -> 370L, "num_state_cache_hits", flow("a"));
        reporter.notifyOfAddedMetric((Gauge<Long>) () -> 30L, "num_state_cache_misses", flow("a"));
        // and their heap: 5 MB and 7.5 MB of 128 MB each
        reporter.notifyOfAddedMetric((Gauge<Long>) () -> 5L << 20, "state_cache_bytes", flow("a"));
        reporter.notifyOfAddedMetric((Gauge<Long>) () -> 15L << 19, "state_cache_bytes", flow("a"));
        reporter.notifyOfAddedMetric(
                (Gauge<Long>) () -> 128L << 20, "state_cache_budget_bytes", flow("a"));
        reporter.notifyOfAddedMetric(
                (Gauge<Long>) () -> 128L << 20, "state_cache_budget_bytes", flow("a"));
        reporter.report();

        assertThat(bytes.toString(StandardCharsets.UTF_8).lines())
                .containsExactly(
                        "autocdc: progress: 0 events in, 0 target rows written, 0 dead letters,"
                                + " 0 late events",
                        "autocdc: progress: 1,200,000 events in, 1,150,000 target rows written,"
                                + " 0 dead letters, 0 late events",
                        "autocdc: progress: 1,200,000 events in, 1,150,000 target rows written,"
                                + " 0 dead letters, 0 late events, state cache 87% hits (12.5 of"
                                + " 256.0 MB)");
    }

    @Test
    void anEndedTasksCacheCountsWithItsLastValuesAndIsNoLongerRead() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ProgressReporter reporter =
                new ProgressReporter(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        reporter.notifyOfAddedMetric(new SimpleCounter(), "num_input_rows", flow("a"));
        AtomicLong hits = new AtomicLong(60);
        AtomicLong misses = new AtomicLong(40);
        Gauge<Long> hitGauge = hits::get;
        Gauge<Long> missGauge = misses::get;
        reporter.notifyOfAddedMetric(hitGauge, "num_state_cache_hits", flow("a"));
        reporter.notifyOfAddedMetric(missGauge, "num_state_cache_misses", flow("a"));
        reporter.notifyOfAddedMetric((Gauge<Long>) () -> 10L, "num_state_cache_misses", flow("b"));
        reporter.report();
        hits.set(90); // the task reads on, then ends: 90 of 100 in its cache
        misses.set(10);
        reporter.notifyOfRemovedMetric(hitGauge, "num_state_cache_hits", flow("a"));
        reporter.notifyOfRemovedMetric(missGauge, "num_state_cache_misses", flow("a"));
        hits.set(0); // whatever the ended cache says now is not read
        misses.set(1_000);
        reporter.report();

        assertThat(bytes.toString(StandardCharsets.UTF_8).lines())
                .containsExactly(
                        "autocdc: progress: 0 events in, 0 target rows written, 0 dead letters,"
                                + " 0 late events, state cache 54% hits", // 60 of 110
                        "autocdc: progress: 0 events in, 0 target rows written, 0 dead letters,"
                                + " 0 late events, state cache 81% hits"); // 90 of 110
    }

    @Test
    void theCacheShareIsRoundedDownAndAbsentBeforeAnyRead() {
        assertThat(ProgressReporter.cacheShare(0, 0, 0, 0)).isEmpty();
        assertThat(ProgressReporter.cacheShare(0, 5, 0, 0)).isEqualTo(", state cache 0% hits");
        assertThat(ProgressReporter.cacheShare(999, 1, 0, 0)).isEqualTo(", state cache 99% hits");
        assertThat(ProgressReporter.cacheShare(4, 0, 0, 0)).isEqualTo(", state cache 100% hits");
        assertThat(ProgressReporter.cacheShare(87, 13, 13_107_200, 268_435_456))
                .isEqualTo(", state cache 87% hits (12.5 of 256.0 MB)");
        assertThat(ProgressReporter.line(1, 1, 1, 1))
                .isEqualTo(
                        "autocdc: progress: 1 events in, 1 target rows written, 1 dead letter,"
                                + " 1 late event");
    }

    @Test
    void heldSnapshotsAreSaidOnlyWhenThereAreAny() {
        assertThat(ProgressReporter.held(0)).isEmpty();
        assertThat(ProgressReporter.held(1)).isEqualTo(", 1 snapshot held");
        assertThat(ProgressReporter.held(1200)).isEqualTo(", 1,200 snapshots held");
    }

    @Test
    void erasedKeysAreSaidOnlyWhenThereAreAny() {
        assertThat(ProgressReporter.erased(0)).isEmpty();
        assertThat(ProgressReporter.erased(1)).isEqualTo(", 1 key erased");
        assertThat(ProgressReporter.erased(3)).isEqualTo(", 3 keys erased");
    }
}
