package dev.autocdc.operators.flink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.operators.core.TargetType;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The metrics of SPEC §8, read from a real job's metric reporter. */
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
    }

    private static long sum(JobExecutionResult result, String name) {
        long total = 0;
        for (Metric m : REPORTER.findMetrics(result.getJobID(), name).values()) {
            total += ((Counter) m).getCount();
        }
        return total;
    }
}
