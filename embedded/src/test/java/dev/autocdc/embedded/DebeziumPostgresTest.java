package dev.autocdc.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.embedded.kafka.EmbeddedKafka;
import dev.autocdc.embedded.postgres.PostgresServer;
import dev.autocdc.operators.reference.ReferenceModel;
import dev.autocdc.operators.reference.ReferenceModel.Event;
import dev.autocdc.operators.reference.ReferenceModel.Kind;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real database at the source, end to end: PostgreSQL with logical replication, Debezium's
 * PostgreSQL connector in a JVM of its own writing Kafka Connect's JSON into a topic of the in-JVM
 * broker, the flow reading it with {@code debezium-json} while the database changes, SCD type 2
 * history in Paimon. The workload has transactions that update one row twice, deletes, updates of a
 * primary key and a column added with ALTER TABLE halfway through, among random inserts and
 * updates. The history must equal the reference model over the changes the database made, as
 * Debezium wrote them to the topic; its current rows must equal the table.
 */
class DebeziumPostgresTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** 300 in the suite; -Dautocdc.debezium.transactions=N for a bigger run. */
    private static final int TRANSACTIONS =
            Integer.getInteger("autocdc.debezium.transactions", 300);

    @TempDir Path dir;

    @Test
    void theHistoryEqualsTheReferenceOverTheChangesTheDatabaseMade() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start();
                PostgresServer db = PostgresServer.start();
                Connection sql = db.connect()) {
            PostgresDemo.execute(sql, PostgresDemo.TABLE);
            kafka.createTopic(PostgresDemo.TOPIC, 2);
            Path warehouse = dir.resolve("warehouse");
            Counts counts;
            try (CaptureProcess capture =
                            CaptureProcess.start(
                                    "127.0.0.1:" + db.port() + "/postgres",
                                    "public.accounts",
                                    kafka.bootstrapServers(),
                                    "pg",
                                    dir);
                    RunningFlow flow =
                            RunningFlow.start(
                                    PostgresDemo.flow(warehouse, kafka.bootstrapServers())
                                            + letters(kafka),
                                    2,
                                    Duration.ofSeconds(1))) {
                counts = workload(sql, new Random(42), kafka);
                TableEnvironment batch = lake(warehouse);
                List<String> table = PostgresDemo.current(sql);
                long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
                List<Map<String, String>> history = PostgresDemo.history(batch);
                while (!PostgresDemo.currentOf(history).equals(table)
                        && System.nanoTime() < deadline) {
                    Thread.sleep(500);
                    history = PostgresDemo.history(batch);
                }
                assertThat(PostgresDemo.currentOf(history)).isEqualTo(table);
                Changes changes = changes(kafka);
                assertThat(changes.events().size()).isGreaterThan(TRANSACTIONS);
                assertThat(historyRows(history, changes))
                        .containsExactlyInAnyOrderElementsOf(
                                ReferenceModel.scd2(
                                        changes.events(),
                                        new ReferenceModel.Options(
                                                List.of("owner", "balance", "tier"),
                                                Set.of(),
                                                false,
                                                null,
                                                null,
                                                null)));
            }
            // each bad record is one dead letter, with its reason
            assertThat(kafka.readAll("accounts_letters"))
                    .extracting(r -> JSON.readTree(r.value()).get("reason").asText())
                    .containsExactlyInAnyOrder("PARSE_ERROR", "INEXACT_NUMBER", "BLANK_RECORD");
            // the workload made each kind of change it is meant to test
            assertThat(counts.twiceInOneTransaction).isGreaterThan(10);
            assertThat(counts.deletes).isGreaterThan(10);
            assertThat(counts.keyUpdates).isGreaterThan(10);
            assertThat(counts.tierUpdates).isGreaterThan(10);
        }
    }

    /** The walkthrough runs as a user runs it, and every table in it equals the reference. */
    @Test
    void theWalkthroughMatchesItsReference() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        boolean ok =
                Demo.run(new PrintStream(out, true, StandardCharsets.UTF_8), "kafka", "postgres");
        String text = out.toString(StandardCharsets.UTF_8);
        assertThat(ok).as(text).isTrue();
        assertThat(text)
                .contains(
                        "UPDATE accounts SET id = 20 WHERE id = 2",
                        "1  | Ana   | 90.00   | gold | yes");
    }

    private static final class Counts {
        int twiceInOneTransaction;
        int deletes;
        int keyUpdates;
        int tierUpdates;
    }

    /**
     * Random transactions over up to 40 accounts, each of one to three statements; the column tier
     * is added halfway through, and set by updates after that.
     */
    private static Counts workload(Connection sql, Random random, EmbeddedKafka kafka)
            throws Exception {
        Counts counts = new Counts();
        List<Integer> ids = new ArrayList<>();
        int nextId = 1;
        boolean tier = false;
        for (int t = 0; t < TRANSACTIONS; t++) {
            if (t == TRANSACTIONS / 2) {
                PostgresDemo.execute(sql, List.of("ALTER TABLE accounts ADD COLUMN tier TEXT"));
                tier = true;
                // records no capture wrote, among Debezium's: each a dead letter, nothing else
                kafka.produce(PostgresDemo.TOPIC, BAD, 2);
            }
            List<String> statements = new ArrayList<>(List.of("BEGIN"));
            int n = 1 + random.nextInt(3);
            for (int s = 0; s < n; s++) {
                int choice = ids.size() < 10 ? 0 : random.nextInt(ids.size() > 40 ? 6 : 7);
                if (choice == 0 || choice == 6) {
                    ids.add(nextId);
                    statements.add(
                            "INSERT INTO accounts (id, owner, balance) VALUES (%d, 'owner %d', %d.%02d)"
                                    .formatted(
                                            nextId,
                                            nextId,
                                            random.nextInt(1000),
                                            random.nextInt(100)));
                    nextId++;
                } else {
                    int id = ids.get(random.nextInt(ids.size()));
                    if (choice == 1) {
                        ids.remove(Integer.valueOf(id));
                        statements.add("DELETE FROM accounts WHERE id = " + id);
                        counts.deletes++;
                    } else if (choice == 2) {
                        ids.remove(Integer.valueOf(id));
                        ids.add(nextId);
                        statements.add(
                                "UPDATE accounts SET id = %d WHERE id = %d"
                                        .formatted(nextId++, id));
                        counts.keyUpdates++;
                    } else if (choice == 3 && tier) {
                        statements.add(
                                "UPDATE accounts SET tier = '%s' WHERE id = %d"
                                        .formatted(random.nextBoolean() ? "gold" : "silver", id));
                        counts.tierUpdates++;
                    } else {
                        // one row updated twice in the transaction
                        statements.add(
                                "UPDATE accounts SET balance = balance + 1 WHERE id = " + id);
                        statements.add("UPDATE accounts SET owner = owner || '+' WHERE id = " + id);
                        counts.twiceInOneTransaction++;
                    }
                }
            }
            statements.add("COMMIT");
            PostgresDemo.execute(sql, statements);
        }
        return counts;
    }

    /** The changes in the topic, as the reference's events, and their LSNs in order. */
    private record Changes(List<Event> events, List<Long> lsns) {
        /** An LSN's rank among the changes' (negative when none has it). */
        Integer rank(String lsn) {
            return lsn == null ? null : Collections.binarySearch(lsns, Long.valueOf(lsn));
        }
    }

    /** Records another writer put in the topic: not JSON, a number that is no INT, a blank. */
    private static final List<String> BAD =
            List.of(
                    "{\"before\": null, \"after\": {\"id\": ",
                    "{\"before\": null, \"after\": {\"id\": 3000000000, \"owner\": \"x\"},"
                            + " \"source\": {\"lsn\": 1}, \"op\": \"c\"}",
                    "   ");

    /** The flow's dead letters, into a topic the test reads. */
    private static String letters(EmbeddedKafka kafka) throws Exception {
        kafka.createTopic("accounts_letters", 1);
        return """
        CREATE TABLE letters (flow STRING, source STRING, reason STRING, message STRING,
          payload STRING, topic STRING, `partition` INT, `offset` BIGINT, raw_record BYTES)
        WITH ('connector' = 'kafka', 'topic' = 'accounts_letters',
              'properties.bootstrap.servers' = '%s', 'format' = 'json');
        SET 'autocdc.accounts.dead-letter-table' = 'letters';
        """
                .formatted(kafka.bootstrapServers());
    }

    /** Every change in the topic as the reference's event, sequenced by its LSN's rank. */
    private static Changes changes(EmbeddedKafka kafka) throws Exception {
        List<JsonNode> values = new ArrayList<>();
        TreeSet<Long> lsns = new TreeSet<>();
        for (ConsumerRecord<String, String> r : kafka.readAll(PostgresDemo.TOPIC)) {
            if (r.value() != null && !BAD.contains(r.value())) { // not a tombstone, not a bad one
                JsonNode v = JSON.readTree(r.value());
                values.add(v);
                lsns.add(v.get("source").get("lsn").asLong());
            }
        }
        Changes changes = new Changes(new ArrayList<>(), new ArrayList<>(lsns));
        for (JsonNode v : values) {
            boolean delete = v.get("op").asText().equals("d");
            JsonNode row = delete ? v.get("before") : v.get("after");
            changes.events.add(
                    new Event(
                            row.get("id").asInt(),
                            changes.rank(v.get("source").get("lsn").asText()),
                            null,
                            delete ? Kind.DELETE : Kind.UPSERT,
                            Arrays.asList(
                                    text(row, "owner"), text(row, "balance"), text(row, "tier")),
                            null));
        }
        return changes;
    }

    private static String text(JsonNode row, String field) {
        JsonNode f = row.get(field);
        return f == null || f.isNull() ? null : f.asText();
    }

    /** The Paimon history as the reference's rows, its LSNs as the reference's ranks. */
    private static List<List<Object>> historyRows(
            List<Map<String, String>> history, Changes changes) {
        List<List<Object>> rows = new ArrayList<>();
        for (Map<String, String> r : history) {
            rows.add(
                    Arrays.asList(
                            Integer.valueOf(r.get("id")),
                            r.get("owner"),
                            r.get("balance"),
                            r.get("tier"),
                            changes.rank(r.get("__START_AT")),
                            changes.rank(r.get("__END_AT"))));
        }
        return rows;
    }

    private static TableEnvironment lake(Path warehouse) {
        TableEnvironment batch = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        batch.executeSql(
                "CREATE CATALOG lake WITH ('type' = 'paimon', 'warehouse' = '"
                        + warehouse.toUri()
                        + "')");
        return batch;
    }
}
