package dev.autocdc.job.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.job.flow.FlowScript;
import dev.autocdc.operators.core.AutoCdcFlow;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;

/** A flow defined with the Java builder (mirroring create_auto_cdc_flow) runs like its SQL form. */
class JavaBuilderTest {
    @Test
    void theUsersFlowFromTheBuilderGivesTheReferenceTable() throws Exception {
        // the references' users feed
        Path feed = Path.of("..", "examples", "users_cdf.json").toAbsolutePath().normalize();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.executeSql(
                "CREATE TABLE users_cdf (userId INT, name STRING, city STRING, operation STRING,"
                        + " sequenceNum INT) WITH ('connector' = 'filesystem', 'path' = '"
                        + feed
                        + "', 'format' = 'json')");
        AutoCdcFlow flow =
                AutoCdcFlow.builder("users_history", "users_cdf")
                        .keys("userId")
                        .sequenceBy("sequenceNum")
                        .applyAsDeletes("operation = 'DELETE'")
                        .exceptColumnList(List.of("operation", "sequenceNum"))
                        .storedAsScdType("2")
                        .build();
        PlannedFlow planned =
                new FlowPlanner(tEnv)
                        .plan(flow, new FlowScript.TargetTable("users_history", null, null, 0));
        FlowJob job = new FlowJob(tEnv, List.of(planned));
        CloseableIterator<RowData> changelog = job.attach().get("users_history").collectAsync();
        env.execute("builder");
        TargetTable table = new TargetTable(planned.spec());
        try (changelog) {
            changelog.forEachRemaining(table::apply);
        }
        assertThat(table.toJsonLines().lines())
                .containsExactly(
                        "{\"userId\": 123, \"name\": \"Isabel\", \"city\": \"Monterrey\","
                                + " \"__START_AT\": 1, \"__END_AT\": 5}",
                        "{\"userId\": 123, \"name\": \"Isabel\", \"city\": \"Chihuahua\","
                                + " \"__START_AT\": 5, \"__END_AT\": 6}",
                        "{\"userId\": 124, \"name\": \"Raul\", \"city\": \"Oaxaca\","
                                + " \"__START_AT\": 1, \"__END_AT\": null}",
                        "{\"userId\": 125, \"name\": \"Mercedes\", \"city\": \"Tijuana\","
                                + " \"__START_AT\": 2, \"__END_AT\": 5}",
                        "{\"userId\": 125, \"name\": \"Mercedes\", \"city\": \"Mexicali\","
                                + " \"__START_AT\": 5, \"__END_AT\": 6}",
                        "{\"userId\": 125, \"name\": \"Mercedes\", \"city\": \"Guadalajara\","
                                + " \"__START_AT\": 6, \"__END_AT\": null}",
                        "{\"userId\": 126, \"name\": \"Lily\", \"city\": \"Cancun\","
                                + " \"__START_AT\": 2, \"__END_AT\": null}");
    }
}
