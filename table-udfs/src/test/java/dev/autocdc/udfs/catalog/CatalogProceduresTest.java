package dev.autocdc.udfs.catalog;

import static org.assertj.core.api.Assertions.assertThat;

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
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code autocdc} catalog's procedures from Flink SQL: {@code validate_flow} returns the report
 * {@code autocdc validate} prints, a row per line, for a flow given as text; {@code run_flow}
 * submits a flow file's job from the session and returns its id, and the job writes the history the
 * references print.
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
            produce(kafka, Files.readAllLines(Path.of("..", "examples", "users_cdf.json")));
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

    private static List<String> rows(StreamTableEnvironment tEnv, String sql) throws Exception {
        List<String> out = new ArrayList<>();
        try (CloseableIterator<Row> it = tEnv.executeSql(sql).collect()) {
            it.forEachRemaining(r -> out.add(String.valueOf(r.getField(0))));
        }
        return out;
    }

    private static void produce(EmbeddedKafka kafka, List<String> lines) throws Exception {
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(
                        Map.of("bootstrap.servers", kafka.bootstrapServers()),
                        new StringSerializer(),
                        new StringSerializer())) {
            for (String line : lines) {
                if (!line.isBlank()) {
                    producer.send(new ProducerRecord<>("users_cdf", line)).get();
                }
            }
        }
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
