package dev.autocdc.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.embedded.kafka.EmbeddedKafka;
import dev.autocdc.job.cli.AutoCdcCli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The users walkthrough as each capture tool writes it (Canal, Maxwell, Oracle GoldenGate, Debezium
 * with its schemas), on a real topic spread over two partitions, with one record no format can
 * read: inserts, updates and deletes sequenced by the format's own timestamp, read as a metadata
 * column; the SCD2 target kept by the CLI and compared with the hand-typed reference rows.
 */
class CdcFormatsKafkaTest {
    private static EmbeddedKafka kafka;

    @BeforeAll
    static void broker() throws Exception {
        kafka = EmbeddedKafka.start();
    }

    @AfterAll
    static void stop() {
        kafka.close();
    }

    /** One change of a users row, in the walkthrough's business time (seconds). */
    private record Change(char op, User before, User after, int second) {}

    private record User(int id, String name, String city) {}

    /** The walkthrough's events in the order a capture tool would see them commit. */
    private static final List<Change> CHANGES =
            List.of(
                    new Change('c', null, new User(124, "Raul", "Oaxaca"), 1),
                    new Change('c', null, new User(123, "Isabel", "Monterrey"), 1),
                    new Change('c', null, new User(125, "Mercedes", "Tijuana"), 2),
                    new Change('c', null, new User(126, "Lily", "Cancun"), 2),
                    new Change(
                            'u',
                            new User(125, "Mercedes", "Tijuana"),
                            new User(125, "Mercedes", "Mexicali"),
                            5),
                    new Change(
                            'u',
                            new User(123, "Isabel", "Monterrey"),
                            new User(123, "Isabel", "Chihuahua"),
                            5),
                    new Change('d', new User(123, "Isabel", "Chihuahua"), null, 6),
                    new Change(
                            'u',
                            new User(125, "Mercedes", "Mexicali"),
                            new User(125, "Mercedes", "Guadalajara"),
                            6));

    /** Each format: its options, the metadata key of its timestamp, and how it writes a change. */
    enum Format {
        CANAL("'format' = 'canal-json'", "value.event-timestamp") {
            @Override
            String encode(Change c, int n) {
                // Canal writes values as strings; an update's "old" holds the changed fields only
                User row = c.op() == 'd' ? c.before() : c.after();
                String data =
                        "{\"userId\": \"%d\", \"name\": \"%s\", \"city\": \"%s\"}"
                                .formatted(row.id(), row.name(), row.city());
                String old = c.op() == 'u' ? "[{\"city\": \"" + c.before().city() + "\"}]" : "null";
                String type = c.op() == 'c' ? "INSERT" : c.op() == 'u' ? "UPDATE" : "DELETE";
                return ("{\"data\": [%s], \"database\": \"hr\", \"es\": %d, \"id\": %d, \"isDdl\":"
                            + " false, \"mysqlType\": {\"userId\": \"int\", \"name\":"
                            + " \"varchar(64)\", \"city\": \"varchar(64)\"}, \"old\": %s,"
                            + " \"pkNames\": [\"userId\"], \"sql\": \"\", \"sqlType\": {\"userId\":"
                            + " 4, \"name\": 12, \"city\": 12}, \"table\": \"users\", \"ts\": %d,"
                            + " \"type\": \"%s\"}")
                        .formatted(data, c.second() * 1000L, n, old, c.second() * 1000L + 10, type);
            }
        },
        MAXWELL("'format' = 'maxwell-json'", "value.ingestion-timestamp") {
            @Override
            String encode(Change c, int n) {
                // Maxwell's ts is in seconds; a delete's data is the deleted row
                User row = c.op() == 'd' ? c.before() : c.after();
                String old =
                        c.op() == 'u' ? ", \"old\": {\"city\": \"" + c.before().city() + "\"}" : "";
                String type = c.op() == 'c' ? "insert" : c.op() == 'u' ? "update" : "delete";
                return ("{\"database\": \"hr\", \"table\": \"users\", \"type\": \"%s\", \"ts\": %d,"
                                + " \"xid\": %d, \"commit\": true, \"data\": %s%s}")
                        .formatted(type, c.second(), 900 + n, plain(row), old);
            }
        },
        OGG("'format' = 'ogg-json'", "value.event-timestamp") {
            @Override
            String encode(Change c, int n) {
                String type = c.op() == 'c' ? "I" : c.op() == 'u' ? "U" : "D";
                return ("{\"table\": \"HR.USERS\", \"op_type\": \"%s\", \"op_ts\": \"1970-01-01"
                                + " 00:00:0%d.000000\", \"current_ts\":"
                                + " \"1970-01-01T00:00:0%d.010000\", \"pos\": \"%020d\","
                                + " \"primary_keys\": [\"userId\"], \"before\": %s, \"after\": %s}")
                        .formatted(
                                type,
                                c.second(),
                                c.second(),
                                n,
                                plain(c.before()),
                                plain(c.after()));
            }
        },
        DEBEZIUM_WITH_SCHEMA(
                "'format' = 'debezium-json', 'debezium-json.schema-include' = 'true'",
                "value.source.timestamp") {
            @Override
            String encode(Change c, int n) {
                String row =
                        "{\"type\": \"struct\", \"optional\": true, \"name\": \"hr.users.Value\","
                            + " \"fields\": [{\"type\": \"int32\", \"optional\": false, \"field\":"
                            + " \"userId\"}, {\"type\": \"string\", \"optional\": true, \"field\":"
                            + " \"name\"}, {\"type\": \"string\", \"optional\": true, \"field\":"
                            + " \"city\"}]";
                String schema =
                        ("{\"type\": \"struct\", \"optional\": false, \"name\":"
                             + " \"hr.users.Envelope\", \"fields\": [%s, \"field\": \"before\"},"
                             + " %s, \"field\": \"after\"}, {\"type\": \"string\", \"optional\":"
                             + " false, \"field\": \"op\"}, {\"type\": \"int64\", \"optional\":"
                             + " true, \"field\": \"ts_ms\"}]}")
                                .formatted(row, row);
                return ("{\"schema\": %s, \"payload\": {\"before\": %s, \"after\": %s, \"op\":"
                                + " \"%s\", \"source\": {\"ts_ms\": %d, \"db\": \"hr\", \"table\":"
                                + " \"users\"}, \"ts_ms\": %d}}")
                        .formatted(
                                schema,
                                plain(c.before()),
                                plain(c.after()),
                                c.op(),
                                c.second() * 1000L,
                                c.second() * 1000L + 10);
            }
        };

        final String options;
        final String timestampKey;

        Format(String options, String timestampKey) {
            this.options = options;
            this.timestampKey = timestampKey;
        }

        /** The change as this tool writes it; {@code n} numbers the tool's messages. */
        abstract String encode(Change c, int n);

        private static String plain(User u) {
            return u == null
                    ? "null"
                    : "{\"userId\": %d, \"name\": \"%s\", \"city\": \"%s\"}"
                            .formatted(u.id(), u.name(), u.city());
        }
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void walkthroughInEachCaptureFormat(Format format, @TempDir Path dir) throws Exception {
        String topic = "users_" + format.name().toLowerCase();
        kafka.createTopic(topic, 2);
        List<String> records = new ArrayList<>();
        for (int i = 0; i < CHANGES.size(); i++) {
            records.add(format.encode(CHANGES.get(i), i + 1));
        }
        records.add(4, "{\"type\": \"UPDATE\", \"data\": [{broken");
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(
                        Map.of("bootstrap.servers", kafka.bootstrapServers()),
                        new StringSerializer(),
                        new StringSerializer())) {
            for (int i = 0; i < records.size(); i++) {
                producer.send(new ProducerRecord<>(topic, i % 2, null, records.get(i))).get();
            }
        }
        Path flow = dir.resolve("flow.sql");
        Files.writeString(
                flow,
                """
                CREATE TABLE users_cdc (userId INT, name STRING, city STRING,
                  changed_at TIMESTAMP_LTZ(3) METADATA FROM '%s' VIRTUAL)
                WITH ('connector' = 'kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s',
                      'properties.group.id' = 'autocdc-test', 'scan.startup.mode' = 'earliest-offset',
                      'scan.bounded.mode' = 'latest-offset', %s);
                CREATE OR REFRESH STREAMING TABLE users_history;
                CREATE FLOW users AS AUTO CDC INTO users_history FROM STREAM(users_cdc)
                KEYS (userId) SEQUENCE BY changed_at COLUMNS * EXCEPT (changed_at) STORED AS SCD TYPE 2;
                """
                        .formatted(
                                format.timestampKey,
                                topic,
                                kafka.bootstrapServers(),
                                format.options));
        Path result = dir.resolve("history.jsonl");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code =
                new AutoCdcCli(
                                new PrintStream(new ByteArrayOutputStream()),
                                new PrintStream(err, true, StandardCharsets.UTF_8))
                        .run(
                                new String[] {
                                    "run",
                                    "--flow",
                                    flow.toString(),
                                    "--parallelism",
                                    "2",
                                    "--materialize",
                                    result.toString()
                                });
        assertThat(code).as(err.toString()).isZero();
        assertThat(err.toString())
                .contains("autocdc: flow users: 1 dead letter (PARSE_ERROR 1) logged only");
        String t = "\"__START_AT\": \"1970-01-01 00:00:0%dZ\", \"__END_AT\": %s}";
        assertThat(Files.readAllLines(result))
                .containsExactly(
                        "{\"userId\": 123, \"name\": \"Isabel\", \"city\": \"Monterrey\", "
                                + t.formatted(1, "\"1970-01-01 00:00:05Z\""),
                        "{\"userId\": 123, \"name\": \"Isabel\", \"city\": \"Chihuahua\", "
                                + t.formatted(5, "\"1970-01-01 00:00:06Z\""),
                        "{\"userId\": 124, \"name\": \"Raul\", \"city\": \"Oaxaca\", "
                                + t.formatted(1, "null"),
                        "{\"userId\": 125, \"name\": \"Mercedes\", \"city\": \"Tijuana\", "
                                + t.formatted(2, "\"1970-01-01 00:00:05Z\""),
                        "{\"userId\": 125, \"name\": \"Mercedes\", \"city\": \"Mexicali\", "
                                + t.formatted(5, "\"1970-01-01 00:00:06Z\""),
                        "{\"userId\": 125, \"name\": \"Mercedes\", \"city\": \"Guadalajara\", "
                                + t.formatted(6, "null"),
                        "{\"userId\": 126, \"name\": \"Lily\", \"city\": \"Cancun\", "
                                + t.formatted(2, "null"));
    }
}
