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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two flows over one Kafka topic, SCD type 1 and type 2, read through the one source they share
 * (docs/flows.md, "Several flows from one table"), with bad records among the events: each target
 * equals its hand-typed reference, and each flow writes the letters of the records it refuses,
 * decoded by its own step.
 */
class SharedSourceKafkaTest {
    @TempDir Path dir;

    @Test
    void twoFlowsOfOneTopicEachGetEveryRecordAndTheirOwnLetters() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            kafka.createTopic("users_shared", 3);
            List<String> events = new ArrayList<>(KafkaEndToEndTest.USERS);
            events.add(2, "{this is not json");
            events.add("{\"userId\":  null, \"name\":  \"nobody\", \"sequenceNum\":  9}");
            kafka.produce("users_shared", events, 3);
            Path flow = dir.resolve("two.sql");
            Files.writeString(
                    flow,
                    """
                    CREATE TABLE users_cdf (userId INT, name STRING, city STRING, operation STRING, sequenceNum INT)
                    WITH ('connector' = 'kafka', 'topic' = 'users_shared', 'properties.bootstrap.servers' = '%s',
                          'properties.group.id' = 'autocdc-shared', 'scan.startup.mode' = 'earliest-offset',
                          'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
                    CREATE OR REFRESH STREAMING TABLE users_now;
                    CREATE FLOW now AS AUTO CDC INTO users_now FROM STREAM(users_cdf)
                    KEYS (userId) APPLY AS DELETE WHEN operation = "DELETE" SEQUENCE BY sequenceNum
                    COLUMNS * EXCEPT (operation, sequenceNum) STORED AS SCD TYPE 1;
                    CREATE OR REFRESH STREAMING TABLE users_history;
                    CREATE FLOW history AS AUTO CDC INTO users_history FROM STREAM(users_cdf)
                    KEYS (userId) APPLY AS DELETE WHEN operation = "DELETE" SEQUENCE BY sequenceNum
                    COLUMNS * EXCEPT (operation, sequenceNum) STORED AS SCD TYPE 2;
                    """
                            .formatted(kafka.bootstrapServers()));
            Path out = dir.resolve("out.jsonl");
            Path letters = dir.resolve("letters.jsonl");
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
                                        out.toString(),
                                        "--dead-letters",
                                        letters.toString()
                                    });
            assertThat(code).as(err.toString()).isZero();
            assertThat(Files.readAllLines(dir.resolve("out.users_now.jsonl")))
                    .containsExactly(
                            "{\"userId\": 124, \"name\": \"Raul\", \"city\": \"Oaxaca\"}",
                            "{\"userId\": 125, \"name\": \"Mercedes\", \"city\": \"Guadalajara\"}",
                            "{\"userId\": 126, \"name\": \"Lily\", \"city\": \"Cancun\"}");
            assertThat(Files.readAllLines(dir.resolve("out.users_history.jsonl")))
                    .containsExactlyInAnyOrder(
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
            List<String> written = Files.readAllLines(letters);
            for (String f : List.of("now", "history")) {
                assertThat(written)
                        .as("the letters of flow %s", f)
                        .filteredOn(l -> l.contains("\"flow\": \"" + f + "\""))
                        .hasSize(2)
                        .anySatisfy(l -> assertThat(l).contains("\"reason\": \"PARSE_ERROR\""))
                        .anySatisfy(l -> assertThat(l).contains("\"reason\": \"NULL_KEY\""))
                        .allSatisfy(l -> assertThat(l).contains("\"topic\": \"users_shared\""));
            }
            assertThat(written).hasSize(4);
        }
    }
}
