package dev.autocdc.job.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.transformations.SourceTransformation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Flows that read one table read it through one source ({@link SourceSharing}), and a restore keeps
 * every operator id of the job the savepoint was taken of, whatever the layout it had: each
 * savepoint here is the {@code _metadata} of a job planned by the test, holding an (empty) state
 * for each of that job's operator ids, as Flink's check on restore sees it.
 */
class SourceSharingTest {
    private static final String SOURCE =
            """
            CREATE TABLE employees_cdf (employeeId INT, name STRING, operation STRING, recordedAt INT)
            WITH ('connector' = 'kafka', 'topic' = 'employees_cdf',
                  'properties.bootstrap.servers' = 'localhost:9092',
                  'properties.group.id' = 'autocdc', 'format' = 'json');
            """;

    @TempDir Path dir;

    /** Flow {@code name} into an upsert-kafka topic of its own, stored as {@code storedAs}. */
    private static String flow(String name, String storedAs) {
        return """
        CREATE OR REFRESH STREAMING TABLE %1$s_target
        WITH ('connector' = 'upsert-kafka', 'topic' = '%1$s_target',
              'properties.bootstrap.servers' = 'localhost:9092',
              'key.format' = 'json', 'value.format' = 'json');
        CREATE FLOW %1$s AS AUTO CDC INTO %1$s_target FROM STREAM(employees_cdf)
        KEYS (employeeId) APPLY AS DELETE WHEN operation = 'DELETE' SEQUENCE BY recordedAt
        COLUMNS * EXCEPT (operation) STORED AS %2$s;
        """
                .formatted(name, storedAs);
    }

    private static final String TWO = SOURCE + flow("a", "SCD TYPE 1") + flow("b", "SCD TYPE 2");

    @Test
    void twoFlowsOfOneTableReadItThroughOneSource() {
        StreamExecutionEnvironment env = plan(TWO, null);
        assertThat(sourceUids(env)).containsExactly("auto-cdc-shared-source-employees_cdf");
        // one letter for one flow alone: a table of one flow keeps that flow's source
        assertThat(sourceUids(plan(SOURCE + flow("a", "SCD TYPE 1"), null)))
                .containsExactly("auto-cdc-source-a-employees_cdf");
    }

    @Test
    void aFlowSetToOwnReadsTheTableOnItsOwn() {
        String own = "SET 'autocdc.b.source' = 'own';\n" + TWO;
        assertThat(sourceUids(plan(own, null)))
                .containsExactlyInAnyOrder(
                        "auto-cdc-source-a-employees_cdf", "auto-cdc-source-b-employees_cdf");
        assertThatThrownBy(() -> plan("SET 'autocdc.b.source' = 'mine';\n" + TWO, null))
                .hasMessage(
                        "line 1, SET 'autocdc.b.source': 'mine' is not one of 'auto', 'shared',"
                                + " 'own'");
    }

    /** A flow added to a running job reads from its startup mode: on its own. */
    @Test
    void aFlowAddedToTheJobReadsOnItsOwnAndTheOthersKeepTheirSource() throws Exception {
        Path savepoint = PlannedSavepoint.of(dir, plan(SOURCE + flow("a", "SCD TYPE 1"), null));
        StreamExecutionEnvironment added = plan(TWO, savepoint);
        assertThat(sourceUids(added))
                .containsExactlyInAnyOrder(
                        "auto-cdc-source-a-employees_cdf", "auto-cdc-source-b-employees_cdf");
        assertThat(operatorIds(added))
                .containsAll(operatorIds(plan(SOURCE + flow("a", "SCD TYPE 1"), null)));
    }

    @Test
    void aSharedSourceStaysSharedAcrossRestoresAndWhenAFlowIsRemoved() throws Exception {
        StreamExecutionEnvironment first = plan(TWO, null);
        Path savepoint = PlannedSavepoint.of(dir, first);
        StreamExecutionEnvironment again = plan(TWO, savepoint);
        assertThat(operatorIds(again)).isEqualTo(operatorIds(first));
        // b removed: a goes on alone from the shared source's offsets
        StreamExecutionEnvironment alone = plan(SOURCE + flow("a", "SCD TYPE 1"), savepoint);
        assertThat(sourceUids(alone)).containsExactly("auto-cdc-shared-source-employees_cdf");
        // a flow added to the shared pair reads on its own
        StreamExecutionEnvironment three = plan(TWO + flow("c", "SCD TYPE 2"), savepoint);
        assertThat(sourceUids(three))
                .containsExactlyInAnyOrder(
                        "auto-cdc-shared-source-employees_cdf", "auto-cdc-source-c-employees_cdf");
        assertThat(operatorIds(three)).containsAll(operatorIds(first));
    }

    /** A savepoint of flows that each read on their own (every job before sharing) restores. */
    @Test
    void flowsThatHadSourcesOfTheirOwnKeepThem() throws Exception {
        String own = "SET 'autocdc.a.source' = 'own';\nSET 'autocdc.b.source' = 'own';\n" + TWO;
        StreamExecutionEnvironment first = plan(own, null);
        StreamExecutionEnvironment restored = plan(TWO, PlannedSavepoint.of(dir, first));
        assertThat(operatorIds(restored)).isEqualTo(operatorIds(first));
    }

    /**
     * A savepoint that cannot be read is planned as none (the JobManager of an application plans
     * again after a failover, from a savepoint perhaps deleted since, and recovers from its
     * checkpoint whatever the plan).
     */
    @Test
    void aSavepointThatCannotBeReadIsPlannedAsNone() {
        Path missing = dir.resolve("no-such-savepoint");
        assertThat(sourceUids(plan(TWO, missing)))
                .containsExactly("auto-cdc-shared-source-employees_cdf");
    }

    /** bad-records = 'fail' alone would move a flow off the shared source to its startup mode. */
    @Test
    void aFlowThatSharedIsRefusedASourceOfItsOwnUnlessSetToOwn() throws Exception {
        Path savepoint = PlannedSavepoint.of(dir, plan(TWO, null));
        String failing = "SET 'autocdc.b.bad-records' = 'fail';\n" + TWO;
        assertThatThrownBy(() -> plan(failing, savepoint))
                .hasMessage(
                        "line 17, FROM: flow b read employees_cdf through the source it shared"
                                + " with other flows (in the savepoint the job restores); read as"
                                + " declared (bad-records = 'fail') it has a source of its own,"
                                + " which would start from the table's scan.startup.mode instead"
                                + " of where the flow stopped. Keep bad-records = 'dead_letter', or"
                                + " SET 'autocdc.b.source' = 'own' to read from the startup mode");
        StreamExecutionEnvironment own =
                plan("SET 'autocdc.b.source' = 'own';\n" + failing, savepoint);
        assertThat(sourceUids(own))
                .containsExactlyInAnyOrder(
                        "auto-cdc-shared-source-employees_cdf", "auto-cdc-source-b-employees_cdf");
        // without a savepoint there is nothing to leave
        assertThat(sourceUids(plan(failing, null)))
                .containsExactlyInAnyOrder(
                        "auto-cdc-source-a-employees_cdf", "auto-cdc-source-b-employees_cdf");
    }

    /** A table declared again between two flows is another table: no read shared across. */
    @Test
    void aTableDeclaredAgainBetweenTheFlowsIsReadByEachOnItsOwn() {
        String again =
                SOURCE
                        + flow("a", "SCD TYPE 1")
                        + "DROP TABLE employees_cdf;\n"
                        + SOURCE.replace("'topic' = 'employees_cdf'", "'topic' = 'employees_v2'")
                        + flow("b", "SCD TYPE 2");
        assertThat(sourceUids(plan(again, null)))
                .containsExactlyInAnyOrder(
                        "auto-cdc-source-a-employees_cdf", "auto-cdc-source-b-employees_cdf");
    }

    private static StreamExecutionEnvironment plan(String script, Path savepoint) {
        return PlannedSavepoint.plan(script, savepoint);
    }

    private static List<String> sourceUids(StreamExecutionEnvironment env) {
        List<String> uids = new ArrayList<>();
        for (Transformation<?> t : StableUidsTest.operators(env)) {
            if (t instanceof SourceTransformation) {
                uids.add(t.getUid());
            }
        }
        return uids;
    }

    private static Set<String> operatorIds(StreamExecutionEnvironment env) {
        return PlannedSavepoint.operatorIds(env);
    }
}
