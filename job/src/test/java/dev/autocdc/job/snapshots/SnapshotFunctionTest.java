package dev.autocdc.job.snapshots;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.autocdc.job.flow.FlowScript;
import dev.autocdc.job.plan.FlowPlanner;
import dev.autocdc.job.plan.PlannedFlow;
import dev.autocdc.operators.core.AutoCdcFlow;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;

/**
 * Snapshots from a function (semantics §10), as the seeds' Python API takes them: the function is
 * asked for the snapshot after the latest version, says "nothing new" until the test makes a day
 * available, and the flow applies each snapshot it returns as soon as the function returns it (the
 * source's watermark completes it). Day 2 changes a row, removes one and adds one; day 3 removes
 * one and changes one.
 */
class SnapshotFunctionTest {
    private static final Map<Long, List<Row>> DAYS =
            Map.of(
                    1L, List.of(Row.of(1, "Paris"), Row.of(2, "Lyon"), Row.of(3, "Lille")),
                    2L, List.of(Row.of(1, "Paris"), Row.of(2, "Nice"), Row.of(4, "Brest")),
                    3L, List.of(Row.of(2, "Nice"), Row.of(4, "Rome")));

    /** The newest day the function may return; the test moves it on. */
    private static volatile long available;

    private static Optional<SnapshotFunction.Next<Long>> nextAfter(Long latest) {
        long next = latest == null ? 1 : latest + 1;
        return next > available
                ? Optional.empty()
                : Optional.of(new SnapshotFunction.Next<>(DAYS.get(next), next));
    }

    @Test
    void eachSnapshotTheFunctionReturnsIsApplied() throws Exception {
        available = 2;
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        SnapshotFunctions.register(
                env,
                tEnv,
                "city_exports",
                DataTypes.ROW(
                        DataTypes.FIELD("userId", DataTypes.INT()),
                        DataTypes.FIELD("city", DataTypes.STRING())),
                "exportDay",
                DataTypes.BIGINT(),
                SnapshotFunctionTest::nextAfter,
                Duration.ofMillis(100));
        PlannedFlow planned =
                new FlowPlanner(tEnv)
                        .plan(
                                AutoCdcFlow.fromSnapshot("cities", "city_exports")
                                        .keys("userId")
                                        .sequenceBy("exportDay")
                                        .storedAsScdType(2)
                                        .build(),
                                new FlowScript.TargetTable("cities", null, null, 0));
        try (RunningTarget target = new RunningTarget(env, tEnv, planned)) {
            target.await(
                    row -> row,
                    row(1, "Paris", 1, null),
                    row(2, "Lyon", 1, 2),
                    row(2, "Nice", 2, null),
                    row(3, "Lille", 1, 2),
                    row(4, "Brest", 2, null));
            available = 3;
            target.await(
                    row -> row,
                    row(1, "Paris", 1, 3),
                    row(2, "Lyon", 1, 2),
                    row(2, "Nice", 2, null),
                    row(3, "Lille", 1, 2),
                    row(4, "Brest", 2, 3),
                    row(4, "Rome", 3, null));
        }
    }

    @Test
    void aVersionWithoutATimeIsRefusedNamingTheTypes() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        assertThatThrownBy(
                        () ->
                                SnapshotFunctions.register(
                                        env,
                                        tEnv,
                                        "t",
                                        DataTypes.ROW(DataTypes.FIELD("k", DataTypes.INT())),
                                        "v",
                                        DataTypes.STRING(),
                                        latest -> Optional.empty(),
                                        Duration.ofSeconds(1)))
                .hasMessageContaining("INT, BIGINT, DATE or TIMESTAMP, not STRING");
    }

    private static String row(int id, String city, int start, Integer end) {
        return "{\"userId\": %d, \"city\": \"%s\", \"__START_AT\": %d, \"__END_AT\": %s}"
                .formatted(id, city, start, end);
    }
}
