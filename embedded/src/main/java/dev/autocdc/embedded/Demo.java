package dev.autocdc.embedded;

import dev.autocdc.job.cli.AutoCdcCli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The embedded default: an in-JVM Kafka broker and a local Flink replay the reference walkthroughs
 * as a user would run them. Change events are produced to Kafka topics, each flow runs from its SQL
 * text (Kafka JSON source, upsert-kafka target), and the target topic is read back, printed as a
 * table and checked against the table the references print. Each step runs the flow over the events
 * so far.
 */
public final class Demo {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final PrintStream out;
    private final EmbeddedKafka kafka;
    private final Path dir;
    private final List<String> mismatches = new ArrayList<>();
    private int run;

    private Demo(PrintStream out, EmbeddedKafka kafka, Path dir) {
        this.out = out;
        this.kafka = kafka;
        this.dir = dir;
    }

    public static void main(String[] args) throws Exception {
        System.exit(run(System.out) ? 0 : 1);
    }

    /** Runs the demo; returns whether every table equals the reference. */
    public static boolean run(PrintStream out) throws Exception {
        out.println("Starting an in-JVM Kafka broker (KRaft) ...");
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            out.println("Kafka is up at " + kafka.bootstrapServers() + "; Flink runs in this JVM.");
            Demo demo = new Demo(out, kafka, Files.createTempDirectory("autocdc-demo-"));
            demo.users();
            demo.employees();
            demo.employeeSnapshots();
            demo.companyA();
            if (demo.mismatches.isEmpty()) {
                out.println("\nEvery table equals the reference.");
                return true;
            }
            out.println(
                    "\nThese tables differ from the reference: "
                            + String.join("; ", demo.mismatches));
            return false;
        }
    }

    private void users() throws Exception {
        out.println("\n### The users walkthrough: SCD type 1 and type 2 from one change feed");
        kafka.createTopic("users_cdf", 3);
        produce(
                "users_cdf",
                List.of(
                        "{\"userId\": 124, \"name\": \"Raul\", \"city\": \"Oaxaca\", \"operation\":"
                                + " \"INSERT\", \"sequenceNum\": 1}",
                        "{\"userId\": 123, \"name\": \"Isabel\", \"city\": \"Monterrey\","
                                + " \"operation\": \"INSERT\", \"sequenceNum\": 1}",
                        "{\"userId\": 125, \"name\": \"Mercedes\", \"city\": \"Tijuana\","
                                + " \"operation\": \"INSERT\", \"sequenceNum\": 2}",
                        "{\"userId\": 126, \"name\": \"Lily\", \"city\": \"Cancun\", \"operation\":"
                                + " \"INSERT\", \"sequenceNum\": 2}",
                        "{\"userId\": 123, \"name\": null, \"city\": null, \"operation\":"
                                + " \"DELETE\", \"sequenceNum\": 6}",
                        "{\"userId\": 125, \"name\": \"Mercedes\", \"city\": \"Guadalajara\","
                                + " \"operation\": \"UPDATE\", \"sequenceNum\": 6}",
                        "{\"userId\": 125, \"name\": \"Mercedes\", \"city\": \"Mexicali\","
                                + " \"operation\": \"UPDATE\", \"sequenceNum\": 5}",
                        "{\"userId\": 123, \"name\": \"Isabel\", \"city\": \"Chihuahua\","
                                + " \"operation\": \"UPDATE\", \"sequenceNum\": 5}"));
        String current = topic("users_current");
        String history = topic("users_history");
        runFlow(
                """
                CREATE TABLE users_cdf (userId INT, name STRING, city STRING, operation STRING, sequenceNum INT)
                WITH (%s, 'topic' = 'users_cdf', 'format' = 'json');
                CREATE OR REFRESH STREAMING TABLE users_current
                WITH ('connector' = 'upsert-kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s',
                      'key.format' = 'json', 'value.format' = 'json');
                CREATE OR REFRESH STREAMING TABLE users_history
                WITH ('connector' = 'upsert-kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s',
                      'key.format' = 'json', 'value.format' = 'json');
                CREATE FLOW users_scd1 AS AUTO CDC INTO users_current FROM STREAM(users_cdf)
                  KEYS (userId) APPLY AS DELETE WHEN operation = "DELETE" SEQUENCE BY sequenceNum
                  COLUMNS * EXCEPT (operation, sequenceNum) STORED AS SCD TYPE 1;
                CREATE FLOW users_scd2 AS AUTO CDC INTO users_history FROM STREAM(users_cdf)
                  KEYS (userId) APPLY AS DELETE WHEN operation = "DELETE" SEQUENCE BY sequenceNum
                  COLUMNS * EXCEPT (operation, sequenceNum) STORED AS SCD TYPE 2;
                """
                        .formatted(
                                kafkaSource(),
                                current,
                                kafka.bootstrapServers(),
                                history,
                                kafka.bootstrapServers()));
        List<String> scd1Columns = List.of("userId", "name", "city");
        show(
                "users_current (STORED AS SCD TYPE 1)",
                read(current),
                scd1Columns,
                r -> true,
                "124|Raul|Oaxaca",
                "125|Mercedes|Guadalajara",
                "126|Lily|Cancun");
        List<String> scd2Columns = List.of("userId", "name", "city", "__START_AT", "__END_AT");
        show(
                "users_history (STORED AS SCD TYPE 2)",
                read(history),
                scd2Columns,
                r -> true,
                "123|Isabel|Monterrey|1|5",
                "123|Isabel|Chihuahua|5|6",
                "124|Raul|Oaxaca|1|null",
                "125|Mercedes|Tijuana|2|5",
                "125|Mercedes|Mexicali|5|6",
                "125|Mercedes|Guadalajara|6|null",
                "126|Lily|Cancun|2|null");
    }

    private void employees() throws Exception {
        out.println("\n### The employees walkthrough: STORED AS BITEMPORAL, step by step");
        kafka.createTopic("employees_cdf", 3);
        List<String> columns =
                List.of(
                        "employeeId",
                        "name",
                        "role",
                        "__START_AT",
                        "__END_AT",
                        "__SYSTEM_START_AT",
                        "__SYSTEM_END_AT");
        String ownerOpen = "1|Chris|Owner|2025-01-01|null|2025-01-02 09:00:00|";
        String[][] steps = {
            {
                "step 2: initial load",
                employee(1, "Chris", "Owner", "INSERT", "2025-01-01", "2025-01-02 09:00:00"),
                employee(2, "Dana", "Engineer", "INSERT", "2025-01-01", "2025-01-02 09:00:00")
            },
            {
                "step 3: in-order update",
                employee(1, "Chris", "Manager", "UPDATE", "2025-03-01", "2025-03-01 09:00:00")
            },
            {
                "step 4: out-of-order update",
                employee(1, "Chris", "Team Lead", "UPDATE", "2025-02-01", "2025-03-15 09:00:00")
            },
            {
                "step 5: correction",
                employee(2, "Dana", "Analyst", "UPDATE", "2025-01-01", "2025-04-01 09:00:00")
            },
            {
                "delete: Chris leaves on 2025-06-30",
                employee(1, null, null, "DELETE", "2025-06-30", "2025-06-30 17:00:00")
            }
        };
        String[][] expected = {
            {ownerOpen + "null", "2|Dana|Engineer|2025-01-01|null|2025-01-02 09:00:00|null"},
            {
                ownerOpen + "2025-03-01 09:00:00",
                "1|Chris|Owner|2025-01-01|2025-03-01|2025-03-01 09:00:00|null",
                "1|Chris|Manager|2025-03-01|null|2025-03-01 09:00:00|null",
                "2|Dana|Engineer|2025-01-01|null|2025-01-02 09:00:00|null"
            },
            {
                ownerOpen + "2025-03-01 09:00:00",
                "1|Chris|Owner|2025-01-01|2025-03-01|2025-03-01 09:00:00|2025-03-15 09:00:00",
                "1|Chris|Owner|2025-01-01|2025-02-01|2025-03-15 09:00:00|null",
                "1|Chris|Team Lead|2025-02-01|2025-03-01|2025-03-15 09:00:00|null",
                "1|Chris|Manager|2025-03-01|null|2025-03-01 09:00:00|null",
                "2|Dana|Engineer|2025-01-01|null|2025-01-02 09:00:00|null"
            },
            {
                ownerOpen + "2025-03-01 09:00:00",
                "1|Chris|Owner|2025-01-01|2025-03-01|2025-03-01 09:00:00|2025-03-15 09:00:00",
                "1|Chris|Owner|2025-01-01|2025-02-01|2025-03-15 09:00:00|null",
                "1|Chris|Team Lead|2025-02-01|2025-03-01|2025-03-15 09:00:00|null",
                "1|Chris|Manager|2025-03-01|null|2025-03-01 09:00:00|null",
                "2|Dana|Engineer|2025-01-01|null|2025-01-02 09:00:00|2025-04-01 09:00:00",
                "2|Dana|Analyst|2025-01-01|null|2025-04-01 09:00:00|null"
            },
            {
                ownerOpen + "2025-03-01 09:00:00",
                "1|Chris|Owner|2025-01-01|2025-03-01|2025-03-01 09:00:00|2025-03-15 09:00:00",
                "1|Chris|Owner|2025-01-01|2025-02-01|2025-03-15 09:00:00|null",
                "1|Chris|Team Lead|2025-02-01|2025-03-01|2025-03-15 09:00:00|null",
                "1|Chris|Manager|2025-03-01|null|2025-03-01 09:00:00|2025-06-30 17:00:00",
                "1|Chris|Manager|2025-03-01|2025-06-30|2025-06-30 17:00:00|null",
                "2|Dana|Engineer|2025-01-01|null|2025-01-02 09:00:00|2025-04-01 09:00:00",
                "2|Dana|Analyst|2025-01-01|null|2025-04-01 09:00:00|null"
            }
        };
        for (int s = 0; s < steps.length; s++) {
            String[] step = steps[s];
            List<String> events = new ArrayList<>();
            for (int i = 1; i < step.length; i++) {
                events.add(step[i]);
            }
            produce("employees_cdf", events);
            String target = topic("employees_bitemporal");
            runFlow(
                    """
                    CREATE TABLE employees_cdf (employeeId INT, name STRING, role STRING, operation STRING,
                      effectiveDate DATE, recordedAt TIMESTAMP(0))
                    WITH (%s, 'topic' = 'employees_cdf', 'format' = 'json');
                    CREATE OR REFRESH STREAMING TABLE employees_bitemporal
                    WITH ('connector' = 'upsert-kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s',
                          'key.format' = 'json', 'value.format' = 'json');
                    CREATE FLOW apply_cdc AS AUTO CDC INTO employees_bitemporal
                    FROM STREAM(employees_cdf)
                    KEYS (employeeId)
                    APPLY AS DELETE WHEN operation = "DELETE"
                    SEQUENCE BY effectiveDate
                    SYSTEM SEQUENCE BY recordedAt
                    COLUMNS * EXCEPT (operation)
                    STORED AS BITEMPORAL;
                    """
                            .formatted(kafkaSource(), target, kafka.bootstrapServers()));
            List<Map<String, String>> table = read(target);
            show("employees_bitemporal after " + step[0], table, columns, r -> true, expected[s]);
            if (s == 3) {
                out.println("\nThe queries of the reference, on the table after step 5:");
                show(
                        "current state: __END_AT IS NULL AND __SYSTEM_END_AT IS NULL",
                        table,
                        columns.subList(0, 3),
                        r -> r.get("__END_AT") == null && r.get("__SYSTEM_END_AT") == null,
                        "1|Chris|Manager",
                        "2|Dana|Analyst");
                show(
                        "business-time history as believed now: __SYSTEM_END_AT IS NULL",
                        table,
                        columns.subList(0, 5),
                        r -> r.get("__SYSTEM_END_AT") == null,
                        "1|Chris|Owner|2025-01-01|2025-02-01",
                        "1|Chris|Team Lead|2025-02-01|2025-03-01",
                        "1|Chris|Manager|2025-03-01|null",
                        "2|Dana|Analyst|2025-01-01|null");
                show(
                        "what did we believe on 2025-03-10 00:00:00 about 2025-02-15",
                        table,
                        columns.subList(0, 3),
                        r ->
                                during(r, "__START_AT", "__END_AT", "2025-02-15")
                                        && during(
                                                r,
                                                "__SYSTEM_START_AT",
                                                "__SYSTEM_END_AT",
                                                "2025-03-10 00:00:00"),
                        "1|Chris|Owner",
                        "2|Dana|Engineer");
                show(
                        "what do we believe today about 2025-02-15",
                        table,
                        columns.subList(0, 3),
                        r ->
                                during(r, "__START_AT", "__END_AT", "2025-02-15")
                                        && r.get("__SYSTEM_END_AT") == null,
                        "1|Chris|Team Lead",
                        "2|Dana|Analyst");
            }
        }
    }

    /**
     * SPEC §13 H: the employees as four whole snapshots instead of a change feed, with FROM
     * SNAPSHOT: nothing says what changed; a role that differs opens a version, and a snapshot that
     * restates an older date corrects the belief about it.
     */
    private void employeeSnapshots() throws Exception {
        out.println(
                "\n### The employees from nightly snapshots: FROM SNAPSHOT, STORED AS BITEMPORAL");
        String source = topic("employee_snapshots");
        String[][] snapshots = {
            {"2025-01-01", "2025-01-02", "Owner", "Engineer"},
            {"2025-03-01", "2025-03-01", "Manager", "Engineer"},
            {"2025-02-01", "2025-03-15", "Team Lead", "Engineer"},
            {"2025-01-01", "2025-04-01", "Owner", "Analyst"}
        };
        List<String> rows = new ArrayList<>();
        for (String[] s : snapshots) {
            for (int id = 1; id <= 2; id++) {
                rows.add(
                        "{\"employeeId\": %d, \"name\": \"%s\", \"role\": \"%s\", \"snapshotDate\": \"%s\", \"takenAt\": \"%s 00:00:00\"}"
                                .formatted(id, id == 1 ? "Chris" : "Dana", s[1 + id], s[0], s[1]));
            }
        }
        produce(source, rows);
        String target = topic("employees_from_snapshots");
        runFlow(
                """
                CREATE TABLE employee_snapshots (employeeId INT, name STRING, role STRING,
                  snapshotDate DATE, takenAt TIMESTAMP(0))
                WITH (%s, 'topic' = '%s', 'format' = 'json');
                CREATE OR REFRESH STREAMING TABLE employees_from_snapshots
                WITH ('connector' = 'upsert-kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s',
                      'key.format' = 'json', 'value.format' = 'json');
                CREATE FLOW nightly AS AUTO CDC INTO employees_from_snapshots
                FROM SNAPSHOT(employee_snapshots)
                KEYS (employeeId)
                SEQUENCE BY snapshotDate
                SYSTEM SEQUENCE BY takenAt
                STORED AS BITEMPORAL;
                """
                        .formatted(kafkaSource(), source, target, kafka.bootstrapServers()));
        show(
                "employees_from_snapshots after four snapshots (SPEC 13 H)",
                read(target),
                List.of(
                        "employeeId",
                        "name",
                        "role",
                        "__START_AT",
                        "__END_AT",
                        "__SYSTEM_START_AT",
                        "__SYSTEM_END_AT"),
                r -> true,
                "1|Chris|Owner|2025-01-01|null|2025-01-02 00:00:00|2025-03-01 00:00:00",
                "1|Chris|Owner|2025-01-01|2025-03-01|2025-03-01 00:00:00|2025-03-15 00:00:00",
                "1|Chris|Manager|2025-03-01|null|2025-03-01 00:00:00|null",
                "1|Chris|Owner|2025-01-01|2025-02-01|2025-03-15 00:00:00|null",
                "1|Chris|Team Lead|2025-02-01|2025-03-01|2025-03-15 00:00:00|null",
                "2|Dana|Engineer|2025-01-01|null|2025-01-02 00:00:00|2025-04-01 00:00:00",
                "2|Dana|Analyst|2025-01-01|2025-02-01|2025-04-01 00:00:00|null",
                "2|Dana|Engineer|2025-02-01|null|2025-04-01 00:00:00|null");
        out.println(
                "Chris's rows are the change feed's. Dana's differ: the snapshots of 2025-02-01"
                        + " and 2025-03-01 say she was an Engineer then, so the correction of"
                        + " 2025-01-01 to Analyst holds only until 2025-02-01 (the change feed"
                        + " never said what she was on those dates).");
    }

    private void companyA() throws Exception {
        out.println("\n### Company A: insert, update, out-of-order update, delete (bitemporal)");
        kafka.createTopic("company_cdf", 2);
        String[][] changes = {
            {
                "change 1: insert",
                "{\"CompanyId\": \"A\", \"Data Point\": \"XFv1\", \"Sequencing\": \"2025-07-18"
                    + " 10:01:00\", \"System Sequencing\": \"2025-07-18 10:05:00\", \"Operation\":"
                    + " \"INSERT\"}"
            },
            {
                "change 2: update",
                "{\"CompanyId\": \"A\", \"Data Point\": \"XFv2\", \"Sequencing\": \"2025-07-18"
                    + " 12:15:43\", \"System Sequencing\": \"2025-07-18 12:20:00\", \"Operation\":"
                    + " \"UPDATE\"}"
            },
            {
                "change 3: out-of-order update",
                "{\"CompanyId\": \"A\", \"Data Point\": \"XFv3\", \"Sequencing\": \"2025-07-18"
                    + " 12:05:00\", \"System Sequencing\": \"2025-07-18 12:25:00\", \"Operation\":"
                    + " \"UPDATE\"}"
            },
            {
                "change 4: delete",
                "{\"CompanyId\": \"A\", \"Data Point\": \"XFv2\", \"Sequencing\": \"2025-07-18"
                    + " 12:30:00\", \"System Sequencing\": \"2025-07-18 12:30:00\", \"Operation\":"
                    + " \"DELETE\"}"
            }
        };
        String v1 = "A|XFv1|2025-07-18 10:01:00|null|2025-07-18 10:05:00|";
        String[] two = {
            v1 + "2025-07-18 12:20:00",
            "A|XFv1|2025-07-18 10:01:00|2025-07-18 12:15:43|2025-07-18 12:20:00|null",
            "A|XFv2|2025-07-18 12:15:43|null|2025-07-18 12:20:00|null"
        };
        String[] three = {
            v1 + "2025-07-18 12:20:00",
            "A|XFv1|2025-07-18 10:01:00|2025-07-18 12:15:43|2025-07-18 12:20:00|2025-07-18"
                    + " 12:25:00",
            "A|XFv1|2025-07-18 10:01:00|2025-07-18 12:05:00|2025-07-18 12:25:00|null",
            "A|XFv3|2025-07-18 12:05:00|2025-07-18 12:15:43|2025-07-18 12:25:00|null",
            "A|XFv2|2025-07-18 12:15:43|null|2025-07-18 12:20:00|null"
        };
        String[] four = {
            three[0],
            three[1],
            three[2],
            three[3],
            "A|XFv2|2025-07-18 12:15:43|null|2025-07-18 12:20:00|2025-07-18 12:30:00",
            "A|XFv2|2025-07-18 12:15:43|2025-07-18 12:30:00|2025-07-18 12:30:00|null"
        };
        String[][] expected = {{v1 + "null"}, two, three, four};
        List<String> columns =
                List.of(
                        "CompanyId",
                        "Data Point",
                        "__START_AT",
                        "__END_AT",
                        "__SYSTEM_START_AT",
                        "__SYSTEM_END_AT");
        for (int i = 0; i < changes.length; i++) {
            produce("company_cdf", List.of(changes[i][1]));
            String target = topic("company_bitemporal");
            runFlow(
                    """
                    CREATE TABLE company_cdf (CompanyId STRING, `Data Point` STRING, Sequencing TIMESTAMP(0),
                      `System Sequencing` TIMESTAMP(0), Operation STRING)
                    WITH (%s, 'topic' = 'company_cdf', 'format' = 'json');
                    CREATE OR REFRESH STREAMING TABLE company_bitemporal
                    WITH ('connector' = 'upsert-kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s',
                          'key.format' = 'json', 'value.format' = 'json');
                    CREATE FLOW company AS AUTO CDC INTO company_bitemporal FROM STREAM(company_cdf)
                    KEYS (CompanyId) APPLY AS DELETE WHEN Operation = "DELETE"
                    SEQUENCE BY Sequencing SYSTEM SEQUENCE BY `System Sequencing`
                    COLUMNS (CompanyId, `Data Point`) STORED AS BITEMPORAL;
                    """
                            .formatted(kafkaSource(), target, kafka.bootstrapServers()));
            show(
                    "company_bitemporal after " + changes[i][0],
                    read(target),
                    columns,
                    r -> true,
                    expected[i]);
        }
    }

    /** SPEC §9: start <= at < coalesce(end, +inf); ISO text compares like the values. */
    private static boolean during(Map<String, String> row, String start, String end, String at) {
        String e = row.get(end);
        return row.get(start).compareTo(at) <= 0 && (e == null || e.compareTo(at) > 0);
    }

    private static String employee(
            int id, String name, String role, String op, String date, String recorded) {
        return "{\"employeeId\": "
                + id
                + ", \"name\": "
                + (name == null ? "null" : "\"" + name + "\"")
                + ", \"role\": "
                + (role == null ? "null" : "\"" + role + "\"")
                + ", \"operation\": \""
                + op
                + "\", \"effectiveDate\": \""
                + date
                + "\", \"recordedAt\": \""
                + recorded
                + "\"}";
    }

    private String kafkaSource() {
        return "'connector' = 'kafka', 'properties.bootstrap.servers' = '"
                + kafka.bootstrapServers()
                + "', 'properties.group.id' = 'autocdc-demo', 'scan.startup.mode' ="
                + " 'earliest-offset', 'scan.bounded.mode' = 'latest-offset'";
    }

    private String topic(String name) throws Exception {
        String t = name + "_" + (++run);
        kafka.createTopic(t, 1);
        return t;
    }

    private void runFlow(String sql) throws Exception {
        Path file = dir.resolve("flow" + (++run) + ".sql");
        Files.writeString(file, sql);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        out.println(
                "... running the flow ("
                        + file.getFileName()
                        + ") on a local Flink, parallelism 2");
        int code =
                new AutoCdcCli(
                                new PrintStream(new ByteArrayOutputStream()),
                                new PrintStream(err, true, StandardCharsets.UTF_8))
                        .run(new String[] {"run", "--flow", file.toString(), "--parallelism", "2"});
        if (code != 0) {
            throw new IllegalStateException("the flow failed: " + err);
        }
    }

    private void produce(String topic, List<String> values) throws Exception {
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(
                        Map.of("bootstrap.servers", kafka.bootstrapServers()),
                        new StringSerializer(),
                        new StringSerializer())) {
            for (String v : values) {
                producer.send(new ProducerRecord<>(topic, v)).get();
            }
        }
        out.println("... produced " + values.size() + " change events to Kafka topic " + topic);
    }

    /**
     * An upsert-kafka topic materialized: the last value per key, as column -> JSON text (null for
     * null).
     */
    private List<Map<String, String>> read(String topic) throws Exception {
        Map<String, String> latest = new TreeMap<>();
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(
                        Map.of(
                                "bootstrap.servers",
                                kafka.bootstrapServers(),
                                "group.id",
                                "demo-reader-" + topic,
                                "auto.offset.reset",
                                "earliest"),
                        new StringDeserializer(),
                        new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            long idleSince = System.currentTimeMillis();
            long deadline = idleSince + 60_000;
            while (System.currentTimeMillis() - idleSince < 1_500
                    && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.value() == null) {
                        latest.remove(r.key());
                    } else {
                        latest.put(r.key(), r.value());
                    }
                    idleSince = System.currentTimeMillis();
                }
            }
        }
        List<Map<String, String>> rows = new ArrayList<>();
        for (String value : latest.values()) {
            Map<String, String> row = new LinkedHashMap<>();
            JsonNode node = JSON.readTree(value);
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> f = it.next();
                row.put(f.getKey(), f.getValue().isNull() ? null : f.getValue().asText());
            }
            rows.add(row);
        }
        return rows;
    }

    private void show(
            String title,
            List<Map<String, String>> table,
            List<String> columns,
            Predicate<Map<String, String>> filter,
            String... expected) {
        List<String[]> cells = new ArrayList<>();
        List<String> actual = new ArrayList<>();
        List<Map<String, String>> sorted = new ArrayList<>(table);
        // by key, then business start, then system start (ISO text sorts like the values)
        sorted.sort(
                Comparator.comparing(
                                (Map<String, String> r) -> String.valueOf(r.get(columns.get(0))))
                        .thenComparing(r -> String.valueOf(r.get("__START_AT")))
                        .thenComparing(r -> String.valueOf(r.get("__SYSTEM_START_AT"))));
        for (Map<String, String> row : sorted) {
            if (!filter.test(row)) {
                continue;
            }
            String[] c = new String[columns.size()];
            for (int i = 0; i < c.length; i++) {
                c[i] = String.valueOf(row.get(columns.get(i)));
            }
            cells.add(c);
            actual.add(String.join("|", c));
        }
        int[] width = new int[columns.size()];
        for (int i = 0; i < width.length; i++) {
            width[i] = columns.get(i).length();
            for (String[] c : cells) {
                width[i] = Math.max(width[i], c[i].length());
            }
        }
        StringBuilder b = new StringBuilder("\n== ").append(title).append('\n');
        line(b, columns.toArray(new String[0]), width);
        for (String[] c : cells) {
            line(b, c, width);
        }
        List<String> want = new ArrayList<>(List.of(expected));
        Collections.sort(actual);
        Collections.sort(want);
        if (actual.equals(want)) {
            b.append("   matches the reference\n");
        } else {
            b.append("   DIFFERS from the reference, which has:\n");
            for (String w : expected) {
                b.append("     ").append(w.replace("|", " | ")).append('\n');
            }
            mismatches.add(title);
        }
        out.print(b);
    }

    private static void line(StringBuilder b, String[] cells, int[] width) {
        for (int i = 0; i < cells.length; i++) {
            b.append(String.format("%-" + width[i] + "s", cells[i]))
                    .append(i + 1 < cells.length ? " | " : "\n");
        }
    }
}
