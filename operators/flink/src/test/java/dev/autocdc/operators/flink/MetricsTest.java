package dev.autocdc.operators.flink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.runtime.EngineMetrics;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.spec.OutputMode;
import dev.autocdc.operators.flink.state.StateDescriptors;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.api.operators.co.CoBroadcastWithKeyedOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedBroadcastOperatorTestHarness;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The metrics of semantics §8, read from a real job's metric reporter and from the operator in a
 * harness.
 */
class MetricsTest {
    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setConfiguration(REPORTER.addToConfiguration(new Configuration()))
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    @Test
    void theFlowCountsRowsLateEventsTiesDuplicatesAndDeadLetters() throws Exception {
        EngineSpec spec = AutoCdcFunctionTest.users(TargetType.SCD2, OutputMode.RETRACT);
        List<RowData> rows = new ArrayList<>();
        Object[][] feed = {
            {124, "Raul", "Oaxaca", 1, false},
            {123, "Isabel", "Monterrey", 1, false},
            {125, "Mercedes", "Tijuana", 2, false},
            {126, "Lily", "Cancun", 2, false},
            {123, null, null, 6, true},
            {125, "Mercedes", "Guadalajara", 6, false},
            {125, "Mercedes", "Mexicali", 5, false}, // late
            {123, "Isabel", "Chihuahua", 5, false}, // late
            {125, "Mercedes", "Tijuana", 2, false}, // late, and an exact duplicate
            {126, "Lily", "Cancun2", 2, false}, // a conflicting tie at the newest sequence
            {null, "Nobody", "Nowhere", 3, false}
        }; // null key: dead letter
        for (Object[] e : feed) {
            rows.add(TruncateTest.OperatorRunRows.of(spec.inputType(), e));
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        AutoCdc.apply(
                        env.fromData(rows, InternalTypeInfo.of(spec.inputType())),
                        spec,
                        InternalTypeInfo.of(spec.targetType()),
                        "auto-cdc-metrics")
                .sinkTo(new DiscardingSink<>());
        JobExecutionResult result = env.execute("metrics");

        // upserts: 4 inserts, the delete's close, Guadalajara's close + insert, each late event's
        // close + insert (2 x 2), the tie's in-place update = 12
        assertThat(sum(result, "num_upserted_rows")).isEqualTo(12);
        assertThat(sum(result, "num_deleted_rows")).isZero();
        assertThat(sum(result, "num_late_events")).isEqualTo(3);
        assertThat(sum(result, "num_duplicate_events")).isEqualTo(1);
        assertThat(sum(result, "num_conflicting_ties")).isEqualTo(1);
        assertThat(sum(result, "num_dead_letters")).isEqualTo(1);
        // the freshest applied sequence over the subtasks: 6 (the late events do not lower it);
        // an INT sequence is no time, so there is no lag gauge
        long newest = Long.MIN_VALUE;
        for (Metric g :
                REPORTER.findMetrics(result.getJobID(), "newest_applied_sequence").values()) {
            newest = Math.max(newest, (Long) ((Gauge<?>) g).getValue());
        }
        assertThat(newest).isEqualTo(6L);
        assertThat(REPORTER.findMetrics(result.getJobID(), EngineMetrics.LAG)).isEmpty();
        // whatever the sequence: the time since a subtask last applied an event, -1 before
        long since = -1;
        for (Metric g :
                REPORTER.findMetrics(result.getJobID(), EngineMetrics.SINCE_APPLIED).values()) {
            since = Math.max(since, (Long) ((Gauge<?>) g).getValue());
        }
        assertThat(since).isBetween(0L, 60_000L);
    }

    /**
     * Bitemporal counts, in a fixed arrival order: late in business or system time on either path,
     * duplicates and ties counted once (the recompute counts them, the belief's own step does not).
     */
    @Test
    void bitemporalCountsEachLateDuplicateAndTieOnce() throws Exception {
        EngineSpec spec = AutoCdcFunctionTest.randomSpec(TargetType.BITEMPORAL, false, false);
        Object[][] feed = {
            {1, "a", null, 1, 10, false},
            {1, "b", null, 3, 20, false},
            {1, "c", null, 2, 30, false}, // late in business time, in system order: late
            {1, "c", null, 2, 30, false}, // recomputed: late, and a duplicate
            {1, "d", null, 2, 30, false}, // recomputed: late, and a tie
            {1, "e", null, 5, 40, false},
            {1, "e", null, 5, 40, false}, // a duplicate at the newest sequences: not late
            {1, "f", null, 6, 40, false},
            {1, "g", null, 6, 40, false}, // a tie at the newest sequences: not late
            {1, "h", null, 7, 50, false}
        };
        try (OperatorRun run = OperatorRun.start(spec, OperatorRun.Backend.HASHMAP)) {
            for (Object[] e : feed) {
                run.process(run.input(e));
            }
            EngineMetrics m = run.function().metrics();
            assertThat(m.late()).isEqualTo(3);
            assertThat(m.duplicates()).isEqualTo(2);
            assertThat(m.conflictingTies()).isEqualTo(2);
        }
    }

    /**
     * SCD1 with truncates: the truncate counts where it is applied to a key's events (late behind a
     * newer event), the floor a new key starts from counts nothing, the key's own events count as
     * usual.
     */
    @Test
    void theTruncateFloorIsNotCountedAsAnEvent() throws Exception {
        EngineSpec spec = TruncateTest.spec();
        FlowKeySelector keys = new FlowKeySelector(spec);
        AutoCdcTruncateFunction function = new AutoCdcTruncateFunction(spec);
        try (var harness =
                new KeyedBroadcastOperatorTestHarness<>(
                        new CoBroadcastWithKeyedOperator<>(
                                function,
                                List.of(
                                        StateDescriptors.truncateFloor(spec.flow().columnTypes()),
                                        StateDescriptors.truncateFloorArrival())),
                        keys,
                        keys.getProducedType(),
                        1,
                        1,
                        0)) {
            harness.setup(new RowDataSerializer(spec.targetType()));
            harness.open();
            harness.processElement(row(spec, 1, "a", 5, false));
            harness.processElement(row(spec, 4, "x", 20, false));
            // applied to key 1 (in order) and key 4 (behind x@20: late)
            harness.processBroadcastElement(row(spec, null, null, 10, true));
            harness.processElement(row(spec, 2, "b", 3, false)); // from the floor: late behind it
            harness.processElement(row(spec, 2, "b", 3, false)); // the same again: late
            harness.processElement(row(spec, 3, "c", 12, false)); // from the floor: in order
            harness.processElement(row(spec, 3, "c", 12, false)); // a duplicate
            harness.processElement(row(spec, 3, "d", 12, false)); // a tie
            EngineMetrics m = function.metrics();
            assertThat(m.late()).isEqualTo(3);
            assertThat(m.duplicates()).isEqualTo(1);
            assertThat(m.conflictingTies()).isEqualTo(1);
        }
    }

    private static StreamRecord<RowData> row(
            EngineSpec spec, Integer id, String v, int seq, boolean truncate) {
        return new StreamRecord<>(
                TruncateTest.OperatorRunRows.of(
                        spec.inputType(), new Object[] {id, v, seq, false, truncate}),
                0L);
    }

    private static long sum(JobExecutionResult result, String name) {
        long total = 0;
        for (Metric m : REPORTER.findMetrics(result.getJobID(), name).values()) {
            total += ((Counter) m).getCount();
        }
        return total;
    }
}
