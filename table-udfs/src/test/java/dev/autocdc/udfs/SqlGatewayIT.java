package dev.autocdc.udfs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.embedded.kafka.EmbeddedKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The sessions of docs/sql-functions.md driven through the Flink SQL Gateway's REST API, as the SQL
 * client in gateway mode drives it ({@link Gateway}): statements posted one by one to a session
 * whose jobs run on a session cluster, the functions and the engine reaching the cluster only
 * through the jar the session adds. The employees session: each SELECT's result pages are fetched
 * until the materialized answer equals the reference's. The {@code autocdc} catalog's walkthrough:
 * a session opened with the init file, then the page's flow file and CALLs.
 */
class SqlGatewayIT {
    private static final Path REPO = Path.of(System.getProperty("user.dir")).getParent();
    private static final String JAR = System.getProperty("autocdc.udfs.jar");

    private static EmbeddedKafka kafka;
    private static Gateway gateway;

    @BeforeAll
    static void start() throws Exception {
        kafka = EmbeddedKafka.start();
        kafka.createTopic("employees_cdf", 1);
        kafka.createTopic("employees_bitemporal", 1);
        gateway = Gateway.start(); // one per JVM: the gateway's scheduler is a named singleton
    }

    @AfterAll
    static void stop() throws Exception {
        if (gateway != null) {
            gateway.close();
        }
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    void theEmployeesSessionThroughTheGateway() throws Exception {
        List<List<String>> answers = SqlSessionIT.EMPLOYEES_ANSWERS;
        String session = gateway.openSession();
        List<String> jobs = new ArrayList<>();
        int answer = 0;
        try {
            for (String raw :
                    DocSessions.statements(REPO.resolve("docs/sql-functions.md"), "employees")) {
                String statement =
                        raw.replace("/path/to/autocdc-table-udfs-0.1.0-SNAPSHOT.jar", JAR)
                                .replace("localhost:9092", kafka.bootstrapServers());
                String results = gateway.submit(session, statement);
                if (statement.toUpperCase().startsWith("SELECT")) {
                    List<String> expected = answers.get(answer++);
                    assertThat(settle(results, expected))
                            .as(statement)
                            .containsExactlyInAnyOrderElementsOf(expected);
                    gateway.close(results);
                } else {
                    JsonNode first = gateway.fetchUntilReady(results);
                    if (first.hasNonNull("jobID")) {
                        jobs.add(first.get("jobID").asText());
                    }
                }
            }
            assertThat(answer).isEqualTo(answers.size());
        } finally {
            for (String job : jobs) {
                gateway.cancel(job);
            }
        }
    }

    /**
     * Fetches a streaming query's pages, materializing its changelog, until the answer is the
     * expected one.
     */
    private static List<String> settle(String uri, List<String> expected) throws Exception {
        List<String> sorted = new ArrayList<>(expected);
        Collections.sort(sorted);
        Changelog changelog = Changelog.empty();
        long deadline = System.currentTimeMillis() + Gateway.DEADLINE_MILLIS;
        String next = uri;
        List<String> now = List.of();
        long settledAt = 0;
        while (next != null && System.currentTimeMillis() < deadline) {
            JsonNode page = gateway.get(next);
            for (JsonNode row : page.path("results").path("data")) {
                JsonNode fields = row.get("fields");
                Object[] values = new Object[fields.size()];
                for (int i = 0; i < values.length; i++) {
                    values[i] = fields.get(i).isNull() ? null : javaText(fields.get(i).asText());
                }
                Row r = Row.ofKind(RowKind.valueOf(row.get("kind").asText()), values);
                changelog.apply(r);
            }
            now = new ArrayList<>(changelog.table());
            Collections.sort(now);
            if (now.equals(sorted) && settledAt == 0) {
                settledAt = System.currentTimeMillis();
            } else if (!now.equals(sorted)) {
                settledAt = 0;
            }
            if (settledAt > 0 && System.currentTimeMillis() - settledAt > 2_000) {
                return now; // right, and still right 2 s later while the upstream jobs run on
            }
            next =
                    page.hasNonNull("nextResultUri")
                            ? page.get("nextResultUri").asText().replaceFirst("^/v\\d+", "")
                            : null;
            if ("NOT_READY".equals(page.path("resultType").asText())
                    || page.path("results").path("data").isEmpty()) {
                Thread.sleep(200);
            }
        }
        return now;
    }

    /**
     * A JSON timestamp ("2025-01-02T09:00:00") as Java prints the LocalDateTime the table API
     * returns.
     */
    private static String javaText(String json) {
        return json.matches("\\d{4}-\\d\\d-\\d\\d[ T]\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?")
                ? LocalDateTime.parse(json.replace(' ', 'T')).toString()
                : json;
    }

    /**
     * bootstrap_flow from a gateway session: its batch job runs on the session's cluster (the
     * cluster lists it), from a stored history in JSON files, and writes the savepoint.
     */
    @Test
    void bootstrapFlowRunsItsJobOnTheSessionsCluster() throws Exception {
        Path dir = Files.createTempDirectory("autocdc-bootstrap");
        Path stored = Files.createDirectories(dir.resolve("stored"));
        Files.writeString(
                stored.resolve("part-0.json"),
                history(123, "Isabel", "Monterrey", 1, null)
                        + "\n"
                        + history(124, "Raul", "Oaxaca", 1, null)
                        + "\n");
        Path flow = dir.resolve("users.sql");
        Files.writeString(
                flow,
                DocSessions.block(REPO.resolve("docs/sql-functions.md"), "call-flow")
                                .replace("localhost:9092", kafka.bootstrapServers())
                        + "CREATE TABLE stored (userId INT, name STRING, city STRING, __START_AT"
                        + " INT, __END_AT INT) WITH ('connector' = 'filesystem', 'path' = '"
                        + stored.toUri()
                        + "', 'format' = 'json');\n");
        String session = gateway.openSession();
        gateway.execute(session, initFile());
        List<JsonNode> pages =
                gateway.execute(
                        session,
                        List.of(
                                "CALL autocdc.sys.bootstrap_flow('"
                                        + flow
                                        + "', 'users=stored', '"
                                        + dir.resolve("savepoint")
                                        + "')"));
        assertThat(Gateway.firstField(pages.get(0)))
                .as(pages.get(0).toString())
                .isEqualTo("flow users: 2 keys, 2 rows of stored loaded");
        assertThat(dir.resolve("savepoint/_metadata")).exists();
        assertThat(gateway.jobNames()).contains("autocdc bootstrap");
    }

    /** The init file's statements, as sql-client.sh -i runs them, its jar path made absolute. */
    private static List<String> initFile() throws Exception {
        List<String> statements = new ArrayList<>();
        for (String s :
                DocSessions.split(Files.readString(REPO.resolve("deploy/sql-client-init.sql")))) {
            statements.add(
                    s.replace("table-udfs/target/autocdc-table-udfs-0.1.0-SNAPSHOT.jar", JAR));
        }
        return statements;
    }

    /**
     * The walkthrough of docs/sql-functions.md ("a flow from the SQL client") in a gateway session
     * opened with the SQL client's init file: the flow file and the CALLs as the page gives them,
     * the job on the session's cluster from the jar the init file adds. The target is checked while
     * the events flow, after the inserts and after the rest, against the reference's tables; then
     * {@code erase_key} removes a key's row from the running flow's target.
     */
    @Test
    void aFlowStartedByCallFromTheInitFilesSessionFollowsTheEvents() throws Exception {
        kafka.createTopic("users_cdf", 2);
        kafka.createTopic("users_erasures", 1);
        kafka.createTopic("users_history", 1);
        Path docs = REPO.resolve("docs/sql-functions.md");
        Path flow = Files.createTempDirectory("autocdc-call").resolve("users.sql");
        Files.writeString(
                flow,
                DocSessions.block(docs, "call-flow")
                        .replace("localhost:9092", kafka.bootstrapServers()));
        String session = gateway.openSession();
        List<String> statements = initFile();
        List<String> calls = new ArrayList<>();
        for (String s : DocSessions.statements(docs, "call")) {
            calls.add(s.replace("/flows/users.sql", flow.toString()));
        }
        List<JsonNode> answers = gateway.execute(session, statements);
        assertThat(answers).hasSize(statements.size());
        List<JsonNode> called = gateway.execute(session, calls);
        assertThat(called.get(0).path("results").path("data").toString())
                .contains("flow users: AUTO CDC INTO users_history FROM users_cdf STORED AS SCD2");
        String job = Gateway.firstField(called.get(1));
        assertThat(job).as(called.get(1).toString()).matches("[0-9a-f]{32}");
        try {
            List<String> events = new ArrayList<>();
            for (String line : Files.readAllLines(REPO.resolve("examples/users_cdf.json"))) {
                if (!line.isBlank()) {
                    events.add(line);
                }
            }
            kafka.produce("users_cdf", events.subList(0, 4), 2);
            awaitTable(
                    "users_history",
                    history(123, "Isabel", "Monterrey", 1, null),
                    history(124, "Raul", "Oaxaca", 1, null),
                    history(125, "Mercedes", "Tijuana", 2, null),
                    history(126, "Lily", "Cancun", 2, null));
            kafka.produce("users_cdf", events.subList(4, events.size()), 2);
            List<String> reference =
                    List.of(
                            history(123, "Isabel", "Monterrey", 1, 5),
                            history(123, "Isabel", "Chihuahua", 5, 6),
                            history(124, "Raul", "Oaxaca", 1, null),
                            history(125, "Mercedes", "Tijuana", 2, 5),
                            history(125, "Mercedes", "Mexicali", 5, 6),
                            history(125, "Mercedes", "Guadalajara", 6, null),
                            history(126, "Lily", "Cancun", 2, null));
            awaitTable("users_history", reference.toArray(String[]::new));
            List<String> erase = new ArrayList<>();
            for (String s : DocSessions.statements(docs, "call-erase")) {
                erase.add(s.replace("/flows/users.sql", flow.toString()));
            }
            assertThat(Gateway.firstField(gateway.execute(session, erase).get(0)))
                    .startsWith("erasure of 124 written for flow users");
            List<String> withoutRaul = new ArrayList<>(reference);
            withoutRaul.remove(history(124, "Raul", "Oaxaca", 1, null));
            awaitTable("users_history", withoutRaul.toArray(String[]::new));
        } finally {
            gateway.cancel(job);
        }
    }

    /** A row of the users history as the upsert-kafka sink writes it. */
    private static String history(int id, String name, String city, int start, Integer end) {
        return "{\"userId\":"
                + id
                + ",\"name\":\""
                + name
                + "\",\"city\":\""
                + city
                + "\",\"__START_AT\":"
                + start
                + ",\"__END_AT\":"
                + end
                + "}";
    }

    /** Waits until the upsert topic's table holds exactly {@code expected}; fails at a deadline. */
    private static void awaitTable(String topic, String... expected) throws Exception {
        long deadline = System.currentTimeMillis() + Gateway.DEADLINE_MILLIS;
        List<String> rows = List.of();
        while (System.currentTimeMillis() < deadline) {
            Map<String, String> table = new TreeMap<>();
            for (ConsumerRecord<String, String> r : kafka.readAll(topic)) {
                if (r.value() == null) {
                    table.remove(r.key());
                } else {
                    table.put(r.key(), r.value());
                }
            }
            rows = new ArrayList<>(table.values());
            if (rows.size() == expected.length && rows.containsAll(List.of(expected))) {
                return;
            }
            Thread.sleep(500);
        }
        assertThat(rows).containsExactlyInAnyOrder(expected);
    }
}
