package dev.autocdc.udfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.autocdc.embedded.kafka.EmbeddedKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The SQL-client sessions of docs/sql-functions.md and deploy/sql-client-init.sql, statement by
 * statement as a user types them, against the built jar ({@code ADD JAR} / {@code USING JAR}) and
 * Kafka topics on the in-JVM broker. The jar's path and the broker's address replace the
 * placeholders of the docs; nothing else is changed. Each SELECT runs as the SQL client's result
 * view does, on unbounded topics, until its materialized answer equals the table written here from
 * the references, or fails after a deadline with the answer it reached.
 *
 * <p>This test's classpath holds neither the functions nor the engine (see the failsafe
 * configuration in the module's pom): they can only come from the jar.
 */
class SqlSessionIT {
    private static final long DEADLINE_MILLIS = 120_000;
    private static final Path REPO = Path.of(System.getProperty("user.dir")).getParent();
    private static final String JAR = System.getProperty("autocdc.udfs.jar");
    private static EmbeddedKafka kafka;

    /** The answers to the employees session's SELECTs, in order, written from the reference. */
    static final List<List<String>> EMPLOYEES_ANSWERS =
            List.of(
                    List.of("1/Chris/Owner", "2/Dana/Engineer"),
                    List.of("1/Chris/Team Lead", "2/Dana/Analyst"),
                    List.of("1/Chris/Manager", "2/Dana/Analyst"),
                    List.of(
                            "1/Chris/Owner/2025-01-01/2025-02-01",
                                    "1/Chris/Team Lead/2025-02-01/2025-03-01",
                            "1/Chris/Manager/2025-03-01/null", "2/Dana/Analyst/2025-01-01/null"),
                    // the whole table after step 5
                    List.of(
                            "1/Chris/Owner/2025-01-01/null/2025-01-02T09:00/2025-03-01T09:00",
                            "1/Chris/Owner/2025-01-01/2025-03-01/2025-03-01T09:00/2025-03-15T09:00",
                            "1/Chris/Owner/2025-01-01/2025-02-01/2025-03-15T09:00/null",
                            "1/Chris/Team Lead/2025-02-01/2025-03-01/2025-03-15T09:00/null",
                            "1/Chris/Manager/2025-03-01/null/2025-03-01T09:00/null",
                            "2/Dana/Engineer/2025-01-01/null/2025-01-02T09:00/2025-04-01T09:00",
                            "2/Dana/Analyst/2025-01-01/null/2025-04-01T09:00/null"));

    @BeforeAll
    static void startKafka() throws Exception {
        kafka = EmbeddedKafka.start();
        for (String topic :
                List.of(
                        "employees_cdf",
                        "employees_bitemporal",
                        "users_cdf",
                        "users_history",
                        "users_current")) {
            kafka.createTopic(topic, 1);
        }
    }

    @AfterAll
    static void stopKafka() {
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    void theFunctionsComeOnlyFromTheJar() {
        assertThat(Path.of(JAR)).exists();
        assertThatThrownBy(() -> Class.forName("dev.autocdc.udfs.AsOf"))
                .isInstanceOf(ClassNotFoundException.class);
        assertThatThrownBy(
                        () -> Class.forName("dev.autocdc.operators.flink.runtime.AutoCdcProcessor"))
                .isInstanceOf(ClassNotFoundException.class);
    }

    @Test
    void theEmployeesSessionAnswersWhatWeBelievedOnSAboutB() throws Exception {
        run(
                DocSessions.statements(REPO.resolve("docs/sql-functions.md"), "employees"),
                EMPLOYEES_ANSWERS);
    }

    /**
     * The README's SQL-client example and the docs' registration example are part of the employees
     * session.
     */
    @Test
    void theReadmeSessionIsPartOfTheTestedSession() throws Exception {
        List<String> tested =
                DocSessions.statements(REPO.resolve("docs/sql-functions.md"), "employees").stream()
                        .map(DocSessions::normalized)
                        .toList();
        List<String> readme = DocSessions.statements(REPO.resolve("README.md"), "readme");
        assertThat(readme).hasSizeGreaterThanOrEqualTo(5);
        List<String> register =
                DocSessions.statements(REPO.resolve("docs/sql-functions.md"), "register");
        assertThat(register).hasSize(2);
        for (String statement : Stream.concat(readme.stream(), register.stream()).toList()) {
            assertThat(tested)
                    .as("statement run by the employees session")
                    .contains(DocSessions.normalized(statement));
        }
    }

    @Test
    void theUsersSessionWritesTheReferenceTablesToUpsertKafka() throws Exception {
        run(
                DocSessions.statements(REPO.resolve("docs/sql-functions.md"), "users"),
                List.of(
                        List.of(
                                "123/Isabel/Monterrey/1/5",
                                "123/Isabel/Chihuahua/5/6",
                                "124/Raul/Oaxaca/1/null",
                                "125/Mercedes/Tijuana/2/5",
                                "125/Mercedes/Mexicali/5/6",
                                "125/Mercedes/Guadalajara/6/null",
                                "126/Lily/Cancun/2/null"),
                        List.of("124/Raul/Oaxaca", "125/Mercedes/Guadalajara", "126/Lily/Cancun")));
    }

    @Test
    void theInitFileRegistersEveryFunctionAndTheCatalog() throws Exception {
        // the init file names the jar relative to the repository root, where the client starts;
        // this test runs in the module's directory, so the same relative form reads one level down
        assertThat(
                        Path.of(System.getProperty("user.dir"))
                                .resolve("target/autocdc-table-udfs-0.1.0-SNAPSHOT.jar"))
                .isEqualTo(Path.of(JAR));
        String init =
                Files.readString(REPO.resolve("deploy/sql-client-init.sql"))
                        .replace(
                                "table-udfs/target/autocdc-table-udfs-0.1.0-SNAPSHOT.jar",
                                "target/autocdc-table-udfs-0.1.0-SNAPSHOT.jar");
        List<String> statements = new ArrayList<>(DocSessions.split(init));
        statements.add(
                "CREATE TEMPORARY VIEW h AS SELECT * FROM (VALUES (1, 'a', 1, 5), (1, 'b', 5,"
                        + " CAST(NULL AS INT))) AS t(id, v, __START_AT, __END_AT)");
        statements.add(
                "SELECT id, v FROM AS_OF(input => TABLE h, business_time => '3') WHERE"
                        + " VALID_AT(__START_AT, __END_AT, 3) AND BELIEVED_AT(1, CAST(NULL AS INT),"
                        + " 2)");
        run(statements, List.of(List.of("1/a")));
        TableEnvironment t = session();
        for (String s : DocSessions.split(init)) {
            t.executeSql(s);
        }
        List<String> functions = new ArrayList<>();
        try (CloseableIterator<Row> it = t.executeSql("SHOW USER FUNCTIONS").collect()) {
            it.forEachRemaining(r -> functions.add(String.valueOf(r.getField(0)).toUpperCase()));
        }
        assertThat(functions)
                .contains("AUTO_CDC", "AUTO_CDC_UPSERT", "AS_OF", "VALID_AT", "BELIEVED_AT");
        List<String> procedures = new ArrayList<>();
        try (CloseableIterator<Row> it = t.executeSql("SHOW PROCEDURES IN autocdc.sys").collect()) {
            it.forEachRemaining(r -> procedures.add(String.valueOf(r.getField(0))));
        }
        assertThat(procedures)
                .containsExactlyInAnyOrder(
                        "run_flow", "validate_flow", "bootstrap_flow", "erase_key");
    }

    /**
     * AUTO_CDC's state survives a stop-with-savepoint and a restart under its uid, on RocksDB: the
     * users feed's first five events, a savepoint, then the last three (late events that need the
     * restored history: Mercedes's version 5 lands before 6, Isabel's 5 before her delete at 6).
     * The first five records are deleted from the topic before the restart (as retention would), so
     * a second job without the state would see only the last three events and open versions without
     * closing the earlier ones (checked: the test fails when the restore is left out).
     */
    @Test
    void stateIsRestoredFromASavepointUnderTheUid() throws Exception {
        kafka.createTopic("sp_users_cdf", 1);
        kafka.createTopic("sp_users_history", 1);
        List<String> events =
                List.of(
                        "{\"userId\":124,\"name\":\"Raul\",\"city\":\"Oaxaca\",\"operation\":\"INSERT\",\"sequenceNum\":1}",
                        "{\"userId\":123,\"name\":\"Isabel\",\"city\":\"Monterrey\",\"operation\":\"INSERT\",\"sequenceNum\":1}",
                        "{\"userId\":125,\"name\":\"Mercedes\",\"city\":\"Tijuana\",\"operation\":\"INSERT\",\"sequenceNum\":2}",
                        "{\"userId\":126,\"name\":\"Lily\",\"city\":\"Cancun\",\"operation\":\"INSERT\",\"sequenceNum\":2}",
                        "{\"userId\":123,\"name\":null,\"city\":null,\"operation\":\"DELETE\",\"sequenceNum\":6}",
                        "{\"userId\":125,\"name\":\"Mercedes\",\"city\":\"Guadalajara\",\"operation\":\"UPDATE\",\"sequenceNum\":6}",
                        "{\"userId\":125,\"name\":\"Mercedes\",\"city\":\"Mexicali\",\"operation\":\"UPDATE\",\"sequenceNum\":5}",
                        "{\"userId\":123,\"name\":\"Isabel\",\"city\":\"Chihuahua\",\"operation\":\"UPDATE\",\"sequenceNum\":5}");
        List<String> statements =
                List.of(
                        "ADD JAR '" + JAR + "'",
                        "CREATE FUNCTION AUTO_CDC AS 'dev.autocdc.udfs.AutoCdcTableFunction'",
                        "CREATE TABLE users_cdf (userId INT, name STRING, city STRING, operation"
                                + " STRING, sequenceNum INT) WITH ('connector' = 'kafka', 'topic' ="
                                + " 'sp_users_cdf', 'properties.bootstrap.servers' = '"
                                + kafka.bootstrapServers()
                                + "', 'scan.startup.mode' = 'earliest-offset', 'format' = 'json')",
                        "CREATE TABLE users_history (userId INT, name STRING, city STRING,"
                            + " __START_AT INT, __END_AT INT, PRIMARY KEY (userId, __START_AT) NOT"
                            + " ENFORCED) WITH ('connector' = 'upsert-kafka', 'topic' ="
                            + " 'sp_users_history', 'properties.bootstrap.servers' = '"
                                + kafka.bootstrapServers()
                                + "', 'key.format' = 'json', 'value.format' = 'json')",
                        "CREATE VIEW users_events AS SELECT *, operation = 'DELETE' AS is_delete"
                                + " FROM users_cdf");
        String insert =
                "INSERT INTO users_history SELECT * FROM AUTO_CDC(input => TABLE users_events"
                    + " PARTITION BY userId, sequence_by => DESCRIPTOR(sequenceNum), stored_as =>"
                    + " 'SCD TYPE 2', apply_as_deletes => 'is_delete', except_column_list =>"
                    + " DESCRIPTOR(operation, sequenceNum, is_delete), uid => 'users-history')";
        Path savepoints = Files.createTempDirectory("autocdc-savepoints");

        produce("sp_users_cdf", events.subList(0, 5));
        TableEnvironment first = session();
        first.getConfig().set("state.backend.type", "rocksdb");
        for (String s : statements) {
            first.executeSql(s);
        }
        JobClient job = first.executeSql(insert).getJobClient().orElseThrow();
        awaitRecords(
                "sp_users_history",
                4); // the first events went through the function before the savepoint
        String savepoint =
                job.stopWithSavepoint(
                                false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                        .get();

        produce("sp_users_cdf", events.subList(5, 8));
        kafka.admin()
                .deleteRecords(
                        Map.of(
                                new TopicPartition("sp_users_cdf", 0),
                                RecordsToDelete.beforeOffset(5)))
                .all()
                .get();
        TableEnvironment second = session();
        second.getConfig().set("state.backend.type", "rocksdb");
        second.getConfig().set("execution.state-recovery.path", savepoint);
        for (String s : statements) {
            second.executeSql(s);
        }
        JobClient restored = second.executeSql(insert).getJobClient().orElseThrow();
        try {
            TableEnvironment reader = session();
            for (String s : statements.subList(2, 4)) {
                reader.executeSql(s);
            }
            List<String> expected =
                    List.of(
                            "123/Isabel/Monterrey/1/5",
                            "123/Isabel/Chihuahua/5/6",
                            "124/Raul/Oaxaca/1/null",
                            "125/Mercedes/Tijuana/2/5",
                            "125/Mercedes/Mexicali/5/6",
                            "125/Mercedes/Guadalajara/6/null",
                            "126/Lily/Cancun/2/null");
            assertThat(settle(reader, "SELECT * FROM users_history", expected))
                    .containsExactlyInAnyOrderElementsOf(expected);
        } finally {
            restored.cancel();
        }
    }

    private static void produce(String topic, List<String> values) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", kafka.bootstrapServers());
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (String v : values) {
                producer.send(new ProducerRecord<>(topic, v)).get();
            }
        }
    }

    private static void awaitRecords(String topic, int count) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", kafka.bootstrapServers());
        p.put("auto.offset.reset", "earliest");
        p.put("group.id", "await-" + topic + "-" + System.nanoTime());
        long deadline = System.currentTimeMillis() + DEADLINE_MILLIS;
        int seen = 0;
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            while (seen < count && System.currentTimeMillis() < deadline) {
                seen += consumer.poll(Duration.ofMillis(200)).count();
            }
        }
        assertThat(seen).as("records in " + topic).isGreaterThanOrEqualTo(count);
    }

    private static TableEnvironment session() {
        Configuration conf = new Configuration();
        conf.setString("parallelism.default", "1");
        conf.setString("taskmanager.numberOfTaskSlots", "16");
        return TableEnvironment.create(
                EnvironmentSettings.newInstance()
                        .inStreamingMode()
                        .withConfiguration(conf)
                        .build());
    }

    /**
     * Runs the statements in one session: bounded INSERTs to completion, unbounded ones left
     * running (cancelled at the end), and each SELECT until its answer equals the next expected
     * table.
     */
    private static void run(List<String> statements, List<List<String>> answers) throws Exception {
        TableEnvironment t = session();
        List<JobClient> running = new ArrayList<>();
        int answer = 0;
        try {
            for (String raw : statements) {
                String statement =
                        raw.replace("/path/to/autocdc-table-udfs-0.1.0-SNAPSHOT.jar", JAR)
                                .replace("localhost:9092", kafka.bootstrapServers());
                String head = statement.stripLeading().toUpperCase();
                if (head.startsWith("SELECT")) {
                    assertThat(answer)
                            .as("more SELECTs than expected answers")
                            .isLessThan(answers.size());
                    List<String> expected = answers.get(answer++);
                    assertThat(settle(t, statement, expected))
                            .as(statement)
                            .containsExactlyInAnyOrderElementsOf(expected);
                    continue;
                }
                TableResult result = t.executeSql(statement);
                if (head.startsWith("INSERT") && head.contains(" VALUES")) {
                    result.await();
                } else if (head.startsWith("INSERT")) {
                    running.add(result.getJobClient().orElseThrow());
                }
            }
            assertThat(answer).as("every expected answer was asked for").isEqualTo(answers.size());
        } finally {
            for (JobClient job : running) {
                job.cancel();
            }
        }
    }

    /**
     * Reads a SELECT's changelog, as the SQL client's result view shows it, until its materialized
     * rows are the expected ones (the jobs upstream may still be catching up), or the deadline
     * passes.
     */
    private static List<String> settle(TableEnvironment t, String select, List<String> expected)
            throws Exception {
        Changelog changelog = Changelog.empty();
        TableResult result = t.executeSql(select);
        CloseableIterator<Row> it = result.collect();
        Thread reader =
                new Thread(
                        () -> {
                            try {
                                while (it.hasNext()) {
                                    Row r = it.next();
                                    synchronized (changelog) {
                                        changelog.apply(r);
                                    }
                                }
                            } catch (RuntimeException e) {
                                // cancelled below
                            }
                        },
                        "settle-reader");
        reader.setDaemon(true);
        reader.start();
        long deadline = System.currentTimeMillis() + DEADLINE_MILLIS;
        List<String> sorted = new ArrayList<>(expected);
        Collections.sort(sorted);
        List<String> now = List.of();
        try {
            while (System.currentTimeMillis() < deadline) {
                Thread.sleep(200);
                synchronized (changelog) {
                    now = new ArrayList<>(changelog.table());
                }
                Collections.sort(now);
                if (now.equals(sorted)) {
                    // the answer is right; it must stay so while the upstream jobs run on
                    Thread.sleep(2_000);
                    synchronized (changelog) {
                        now = new ArrayList<>(changelog.table());
                    }
                    Collections.sort(now);
                    return now;
                }
            }
            return now;
        } finally {
            it.close();
        }
    }
}
