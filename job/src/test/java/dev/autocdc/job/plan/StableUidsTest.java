package dev.autocdc.job.plan;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.transformations.PartitionTransformation;
import org.apache.flink.streaming.api.transformations.SideOutputTransformation;
import org.apache.flink.streaming.api.transformations.UnionTransformation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A savepoint restores into a job whose flow file changed elsewhere: Flink matches state to
 * operators by id, so every operator id of the first job must be in the second (the condition Flink
 * checks on restore without {@code --allowNonRestoredState}).
 */
class StableUidsTest {
    private static final String EXAMPLE;

    static {
        try {
            EXAMPLE = Files.readString(Path.of("..", "examples", "employees_kafka.sql"));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** A second flow, from the same source, before the example's flow in the file. */
    private static final String SECOND_FLOW =
            "CREATE OR REFRESH STREAMING TABLE employees_scd2\n"
                    + "WITH ('connector' = 'upsert-kafka', 'topic' = 'employees_scd2',\n"
                    + "      'properties.bootstrap.servers' = 'localhost:9092', 'key.format' ="
                    + " 'json',\n"
                    + "      'value.format' = 'json');\n"
                    + "CREATE FLOW apply_scd2 AS AUTO CDC INTO employees_scd2\n"
                    + "FROM STREAM(employees_cdf) KEYS (employeeId)\n"
                    + "APPLY AS DELETE WHEN operation = \"DELETE\" SEQUENCE BY recordedAt\n"
                    + "COLUMNS * EXCEPT (operation) STORED AS SCD TYPE 2;\n";

    @Test
    void everyOperatorOfTheExampleHasAUidMadeFromItsFlowAndTables() throws Exception {
        StreamExecutionEnvironment env = plan(EXAMPLE);
        List<Transformation<?>> all = operators(env);
        Set<String> uids = new TreeSet<>();
        for (Transformation<?> t : all) {
            assertThat(t.getUid()).as("uid of %s", t.getName()).isNotNull();
            assertThat(uids.add(t.getUid())).as("uid %s once", t.getUid()).isTrue();
        }
        assertThat(uids)
                .contains(
                        "auto-cdc-source-apply_cdc-employees_cdf",
                        "auto-cdc-decode-apply_cdc",
                        "auto-cdc-input-apply_cdc",
                        "auto-cdc-apply_cdc",
                        "auto-cdc-apply_cdc-sink-employees_bitemporal",
                        "auto-cdc-dead-letter-table-apply_cdc-sink-employees_dead_letters");
    }

    @Test
    void aFlowAddedBeforeAnotherKeepsEveryOperatorIdOfTheFirstJob(@TempDir Path dir)
            throws Exception {
        StreamExecutionEnvironment job = plan(EXAMPLE);
        Set<String> first = operatorIds(job);
        int at = EXAMPLE.indexOf("CREATE OR REFRESH STREAMING TABLE");
        String added = EXAMPLE.substring(0, at) + SECOND_FLOW + EXAMPLE.substring(at);
        Set<String> second =
                operatorIds(PlannedSavepoint.plan(added, PlannedSavepoint.of(dir, job)));
        assertThat(second).containsAll(first);
        assertThat(second.size()).isGreaterThan(first.size());
    }

    @Test
    void theSourceKeepsItsUidWhenBadRecordsStopBeingDecoded() throws Exception {
        String failing =
                EXAMPLE.replace(
                        "SET 'autocdc.apply_cdc.dead-letter-table' = 'employees_dead_letters';",
                        "SET 'autocdc.apply_cdc.bad-records' = 'fail';");
        assertThat(failing).isNotEqualTo(EXAMPLE);
        assertThat(sourceUids(plan(failing)))
                .containsExactly("auto-cdc-source-apply_cdc-employees_cdf")
                .isEqualTo(sourceUids(plan(EXAMPLE)));
    }

    /**
     * {@code autocdc.<flow>.parallelism} sets the AUTO CDC operator's parallelism alone, and a
     * restore with another one finds every operator's state where it was (the same ids).
     */
    @Test
    void theFlowsParallelismIsItsOperatorsAndKeepsEveryId() throws Exception {
        String set = "SET 'autocdc.apply_cdc.parallelism' = '7';\n" + EXAMPLE;
        StreamExecutionEnvironment env = plan(set);
        int others = env.getParallelism();
        boolean found = false;
        for (Transformation<?> t : operators(env)) {
            if ("auto-cdc-apply_cdc".equals(t.getUid())) {
                assertThat(t.getParallelism()).as("the AUTO CDC operator").isEqualTo(7);
                found = true;
            } else if (t.getUid() != null && t.getUid().startsWith("auto-cdc-source-")) {
                assertThat(t.getParallelism()).as(t.getUid()).isNotEqualTo(7);
            }
        }
        assertThat(found).isTrue();
        assertThat(others).isNotEqualTo(7);
        assertThat(operatorIds(env)).isEqualTo(operatorIds(plan(EXAMPLE)));
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> plan("SET 'autocdc.apply_cdc.parallelism' = '0';\n" + EXAMPLE))
                .hasMessage(
                        "line 1, SET 'autocdc.apply_cdc.parallelism': '0' is not a whole number"
                                + " from 1 to 32768");
    }

    private static StreamExecutionEnvironment plan(String script) {
        return PlannedSavepoint.plan(script, null);
    }

    private static List<String> sourceUids(StreamExecutionEnvironment env) {
        List<String> uids = new ArrayList<>();
        for (Transformation<?> t : operators(env)) {
            if (t instanceof org.apache.flink.streaming.api.transformations.SourceTransformation) {
                uids.add(t.getUid());
            }
        }
        return uids;
    }

    /** The ids Flink gives the job's operators, as a savepoint records them. */
    private static Set<String> operatorIds(StreamExecutionEnvironment env) {
        return PlannedSavepoint.operatorIds(env);
    }

    /** The job's transformations that become operators. */
    static List<Transformation<?>> operators(StreamExecutionEnvironment env) {
        List<Transformation<?>> all = new ArrayList<>();
        Set<Transformation<?>> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        ArrayDeque<Transformation<?>> queue = new ArrayDeque<>(env.getTransformations());
        while (!queue.isEmpty()) {
            Transformation<?> t = queue.poll();
            if (seen.add(t)) {
                queue.addAll(t.getInputs());
                if (!(t instanceof PartitionTransformation
                        || t instanceof UnionTransformation
                        || t instanceof SideOutputTransformation)) {
                    all.add(t);
                }
            }
        }
        return all;
    }
}
