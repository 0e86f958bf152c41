package dev.autocdc.udfs.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.autocdc.embedded.kafka.EmbeddedKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code autocdc} catalog's procedures from Flink SQL: {@code validate_flow} returns the report
 * {@code autocdc validate} prints, a row per line, for a flow given as text; {@code run_flow}
 * submits a flow file's job from the session and returns its id, and the job writes the history the
 * references print; {@code bootstrap_flow} writes a savepoint that {@code run_flow} continues;
 * {@code erase_key} writes typed keys into the flow's erasures table and refuses wrong ones.
 */
class CatalogProceduresTest {
    @TempDir Path dir;

    private static final String FLOW =
            """
            CREATE TABLE users_cdf (userId INT, name STRING, city STRING, operation STRING, sequenceNum INT)
            WITH ('connector' = 'kafka', 'topic' = 'users_cdf', 'properties.bootstrap.servers' = '%s',
                  'properties.group.id' = 'procedures', 'scan.startup.mode' = 'earliest-offset',
                  'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
            CREATE OR REFRESH STREAMING TABLE users_history
            WITH ('connector' = 'upsert-kafka', 'topic' = 'users_history', 'properties.bootstrap.servers' = '%s',
                  'key.format' = 'json', 'value.format' = 'json');
            CREATE FLOW apply_cdc AS AUTO CDC INTO users_history
            FROM STREAM(users_cdf)
            KEYS (userId)
            APPLY AS DELETE WHEN operation = 'DELETE'
            SEQUENCE BY sequenceNum
            COLUMNS * EXCEPT (operation, sequenceNum)
            STORED AS SCD TYPE 2;
            """;

    @Test
    void validateAndRunAFlowFromSql() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            kafka.createTopic("users_cdf", 2);
            kafka.createTopic("users_history", 1);
            kafka.produce(
                    "users_cdf",
                    Files.readAllLines(Path.of("..", "examples", "users_cdf.json")).stream()
                            .filter(l -> !l.isBlank())
                            .toList(),
                    2);
            String flow = FLOW.formatted(kafka.bootstrapServers(), kafka.bootstrapServers());
            StreamTableEnvironment tEnv =
                    StreamTableEnvironment.create(
                            StreamExecutionEnvironment.getExecutionEnvironment());
            tEnv.executeSql("CREATE CATALOG autocdc WITH ('type' = 'autocdc')");

            List<String> report =
                    rows(tEnv, "CALL autocdc.sys.validate_flow('" + flow.replace("'", "''") + "')");
            assertThat(report)
                    .anyMatch(
                            l ->
                                    l.startsWith(
                                            "flow apply_cdc: AUTO CDC INTO users_history FROM"
                                                    + " users_cdf STORED AS SCD2"));

            Path file = dir.resolve("users.sql");
            Files.writeString(file, flow);
            List<String> job = rows(tEnv, "CALL autocdc.sys.run_flow('" + file + "')");
            assertThat(job).singleElement().asString().matches("[0-9a-f]{32}");
            awaitRows(
                    kafka,
                    "{\"userId\":123,\"name\":\"Isabel\",\"city\":\"Chihuahua\",\"__START_AT\":5,\"__END_AT\":6}",
                    "{\"userId\":123,\"name\":\"Isabel\",\"city\":\"Monterrey\",\"__START_AT\":1,\"__END_AT\":5}",
                    "{\"userId\":124,\"name\":\"Raul\",\"city\":\"Oaxaca\",\"__START_AT\":1,\"__END_AT\":null}",
                    "{\"userId\":125,\"name\":\"Mercedes\",\"city\":\"Guadalajara\",\"__START_AT\":6,\"__END_AT\":null}",
                    "{\"userId\":125,\"name\":\"Mercedes\",\"city\":\"Mexicali\",\"__START_AT\":5,\"__END_AT\":6}",
                    "{\"userId\":125,\"name\":\"Mercedes\",\"city\":\"Tijuana\",\"__START_AT\":2,\"__END_AT\":5}",
                    "{\"userId\":126,\"name\":\"Lily\",\"city\":\"Cancun\",\"__START_AT\":2,\"__END_AT\":null}");
        }
    }

    /**
     * bootstrap_flow reads a stored history into a savepoint; run_flow started from it (the
     * session's {@code execution.state-recovery.path}) continues that history: an update closes a
     * stored version and a late event lands before one.
     */
    @Test
    void bootstrapAFlowFromAStoredHistoryAndRunItFromTheSavepoint() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            kafka.createTopic("users_cdf", 1);
            kafka.createTopic("users_history", 1);
            Path stored = Files.createDirectories(dir.resolve("stored"));
            Files.writeString(
                    stored.resolve("part-0.json"),
                    "{\"userId\":123,\"name\":\"Isabel\",\"city\":\"Monterrey\",\"__START_AT\":1}\n"
                        + "{\"userId\":124,\"name\":\"Raul\",\"city\":\"Oaxaca\",\"__START_AT\":1}\n");
            String flow =
                    FLOW.formatted(kafka.bootstrapServers(), kafka.bootstrapServers())
                            + "CREATE TABLE stored (userId INT, name STRING, city STRING,"
                            + " __START_AT INT, __END_AT INT) WITH ('connector' = 'filesystem',"
                            + " 'path' = '"
                            + stored.toUri()
                            + "', 'format' = 'json');\n";
            Path file = dir.resolve("users.sql");
            Files.writeString(file, flow);
            Path savepoint = dir.resolve("bootstrap");
            StreamTableEnvironment tEnv =
                    StreamTableEnvironment.create(
                            StreamExecutionEnvironment.getExecutionEnvironment());
            tEnv.executeSql("CREATE CATALOG autocdc WITH ('type' = 'autocdc')");

            List<String> loaded =
                    rows(
                            tEnv,
                            "CALL autocdc.sys.bootstrap_flow('"
                                    + file
                                    + "', 'apply_cdc=stored', '"
                                    + savepoint
                                    + "')");
            assertThat(loaded.get(0)).isEqualTo("flow apply_cdc: 2 keys, 2 rows of stored loaded");
            assertThat(loaded.get(1))
                    .startsWith("savepoint " + savepoint + " (max parallelism 128)");
            assertThat(savepoint.resolve("_metadata")).exists();
            // its messages name the procedure's arguments
            assertThatThrownBy(
                            () ->
                                    rows(
                                            tEnv,
                                            "CALL autocdc.sys.bootstrap_flow('"
                                                    + file
                                                    + "', 'other=stored', '"
                                                    + savepoint
                                                    + "')"))
                    .hasStackTraceContaining(
                            "argument savepoint " + savepoint + " holds a savepoint already");

            kafka.produce(
                    "users_cdf",
                    List.of(
                            "{\"userId\":123,\"name\":\"Isabel\",\"city\":\"Chihuahua\",\"operation\":\"UPDATE\",\"sequenceNum\":5}",
                            "{\"userId\":124,\"name\":\"Raul\",\"city\":\"Puebla\",\"operation\":\"INSERT\",\"sequenceNum\":0}"),
                    1);
            tEnv.getConfig().set("execution.state-recovery.path", savepoint.toUri().toString());
            assertThat(rows(tEnv, "CALL autocdc.sys.run_flow('" + file + "')")).hasSize(1);
            awaitRows(
                    kafka,
                    "{\"userId\":123,\"name\":\"Isabel\",\"city\":\"Chihuahua\",\"__START_AT\":5,\"__END_AT\":null}",
                    "{\"userId\":123,\"name\":\"Isabel\",\"city\":\"Monterrey\",\"__START_AT\":1,\"__END_AT\":5}",
                    "{\"userId\":124,\"name\":\"Raul\",\"city\":\"Puebla\",\"__START_AT\":0,\"__END_AT\":1}");
        }
    }

    /**
     * erase_key writes the key, typed as the flow's, into the flow's erasures table; a flow without
     * one and a key of other columns are refused naming the fix.
     */
    @Test
    void eraseAKeyThroughTheFlowsErasuresTable() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            kafka.createTopic("users_erasures", 1);
            String servers = kafka.bootstrapServers();
            String flow =
                    "CREATE TABLE erasures (userId INT) WITH ('connector' = 'kafka', 'topic' ="
                            + " 'users_erasures', 'properties.bootstrap.servers' = '"
                            + servers
                            + "', 'format' = 'json');\n"
                            + "SET 'autocdc.apply_cdc.erasures-table' = 'erasures';\n"
                            + FLOW.formatted(servers, servers);
            Path file = dir.resolve("users.sql");
            Files.writeString(file, flow);
            StreamTableEnvironment tEnv =
                    StreamTableEnvironment.create(
                            StreamExecutionEnvironment.getExecutionEnvironment());
            tEnv.executeSql("CREATE CATALOG autocdc WITH ('type' = 'autocdc')");
            String call = "CALL autocdc.sys.erase_key('" + file + "', 'apply_cdc', ";

            assertThat(rows(tEnv, call + "'{\"userId\": 123}')").get(0))
                    .startsWith("erasure of {\"userId\": 123} written for flow apply_cdc (job ");
            assertThat(rows(tEnv, call + "'124')").get(1))
                    .endsWith("INSERT INTO `erasures` (`userId`) VALUES (CAST('124' AS INT))");
            List<String> written = new ArrayList<>();
            kafka.readAll("users_erasures").forEach(r -> written.add(r.value()));
            assertThat(written).containsExactly("{\"userId\":123}", "{\"userId\":124}");

            assertThatThrownBy(() -> rows(tEnv, call + "'{\"id\": 1}')"))
                    .hasStackTraceContaining(
                            "the key of flow apply_cdc is [userId]; {id=1} lacks userId");
            assertThatThrownBy(() -> rows(tEnv, call + "'{\"userId\": null}')"))
                    .hasStackTraceContaining(
                            "erase_key's key gives userId null; a key column takes a string, a"
                                    + " number or a boolean: {\"userId\": ...}");
            assertThatThrownBy(() -> rows(tEnv, call + "'{userId: 1')"))
                    .hasStackTraceContaining("erase_key's key {userId: 1 is not JSON");
            Files.writeString(file, FLOW.formatted(servers, servers));
            assertThatThrownBy(() -> rows(tEnv, call + "'123')"))
                    .hasStackTraceContaining(
                            "flow apply_cdc has no erasures table; declare one and name it before"
                                    + " the flow: SET 'autocdc.apply_cdc.erasures-table' =");
        }
    }

    private static List<String> rows(StreamTableEnvironment tEnv, String sql) throws Exception {
        List<String> out = new ArrayList<>();
        try (CloseableIterator<Row> it = tEnv.executeSql(sql).collect()) {
            it.forEachRemaining(r -> out.add(String.valueOf(r.getField(0))));
        }
        return out;
    }

    /** Waits up to two minutes for the upsert topic to hold exactly {@code expected}. */
    private static void awaitRows(EmbeddedKafka kafka, String... expected) throws Exception {
        List<String> want = new ArrayList<>(List.of(expected));
        want.sort(null);
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        List<String> rows;
        do {
            Thread.sleep(500);
            Map<String, String> table = new TreeMap<>();
            for (ConsumerRecord<String, String> r : kafka.readAll("users_history")) {
                if (r.value() == null) {
                    table.remove(r.key());
                } else {
                    table.put(r.key(), r.value());
                }
            }
            rows = new ArrayList<>(table.values());
            rows.sort(null);
        } while (!rows.equals(want) && System.nanoTime() < deadline);
        assertThat(rows).isEqualTo(want);
    }
}
