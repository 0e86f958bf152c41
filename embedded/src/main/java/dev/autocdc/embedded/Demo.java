package dev.autocdc.embedded;

import dev.autocdc.embedded.kafka.EmbeddedKafka;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The embedded default: an in-JVM Kafka broker and a local Flink replay the reference walkthroughs
 * as a user would run them. Change events are produced to Kafka topics, each flow runs from its SQL
 * text (Kafka JSON source, upsert-kafka target), and the target topic is read back, printed as a
 * table and checked against the table the references print. Each step runs the flow over the events
 * so far.
 */
public final class Demo {
    private final DemoSession session;
    private final PrintStream out;
    private final EmbeddedKafka kafka;

    private Demo(DemoSession session) {
        this.session = session;
        this.out = session.out;
        this.kafka = session.kafka;
    }

    public static void main(String[] args) throws Exception {
        System.exit(run(System.out) ? 0 : 1);
    }

    /** Runs the demo into Kafka topics; returns whether every table equals the reference. */
    public static boolean run(PrintStream out) throws Exception {
        return run(out, "kafka", "json");
    }

    /**
     * Runs the demo; returns whether every table equals the reference.
     *
     * @param target {@code kafka}: every walkthrough into upsert-kafka topics; {@code paimon}: the
     *     employees walkthrough into a Paimon table in a local warehouse, asked in batch SQL
     * @param source {@code json}: change events the demo writes; {@code postgres}: a PostgreSQL
     *     database captured by Debezium ({@link PostgresDemo}, into a Paimon table)
     */
    public static boolean run(PrintStream out, String target, String source) throws Exception {
        if (!target.equals("kafka") && !target.equals("paimon")) {
            throw new IllegalArgumentException("demo --target is kafka or paimon, not " + target);
        }
        if (!source.equals("json") && !source.equals("postgres")) {
            throw new IllegalArgumentException("demo --source is json or postgres, not " + source);
        }
        out.println("Starting an in-JVM Kafka broker (KRaft) ...");
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            out.println("Kafka is up at " + kafka.bootstrapServers() + "; Flink runs in this JVM.");
            Path dir = Files.createTempDirectory("autocdc-demo-");
            DemoSession session = new DemoSession(out, kafka, dir);
            if (source.equals("postgres")) {
                new PostgresDemo(session, dir).run();
            } else if (target.equals("paimon")) {
                new LakeDemo(session).employees(dir.resolve("warehouse"));
            } else {
                Demo demo = new Demo(session);
                EmployeeDemo employees = new EmployeeDemo(session);
                demo.users();
                employees.changeFeed();
                employees.snapshots();
                demo.companyA();
            }
            if (session.mismatches().isEmpty()) {
                out.println("\nEvery table equals the reference.");
                return true;
            }
            out.println(
                    "\nThese tables differ from the reference: "
                            + String.join("; ", session.mismatches()));
            return false;
        }
    }

    private void users() throws Exception {
        out.println("\n### The users walkthrough: SCD type 1 and type 2 from one change feed");
        kafka.createTopic("users_cdf", 3);
        session.produce(
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
        String current = session.topic("users_current");
        String history = session.topic("users_history");
        session.runFlow(
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
                                session.kafkaSource(),
                                current,
                                kafka.bootstrapServers(),
                                history,
                                kafka.bootstrapServers()));
        List<String> scd1Columns = List.of("userId", "name", "city");
        session.show(
                "users_current (STORED AS SCD TYPE 1)",
                session.read(current),
                scd1Columns,
                r -> true,
                "124|Raul|Oaxaca",
                "125|Mercedes|Guadalajara",
                "126|Lily|Cancun");
        List<String> scd2Columns = List.of("userId", "name", "city", "__START_AT", "__END_AT");
        session.show(
                "users_history (STORED AS SCD TYPE 2)",
                session.read(history),
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

    private void companyA() throws Exception {
        out.println("\n### Company A: insert, update, out-of-order update, delete (bitemporal)");
        kafka.createTopic("company_cdf", 2);
        String[][] changes = companyChanges();
        String[][] expected = companyAfterEachChange();
        List<String> columns =
                List.of(
                        "CompanyId",
                        "Data Point",
                        "__START_AT",
                        "__END_AT",
                        "__SYSTEM_START_AT",
                        "__SYSTEM_END_AT");
        for (int i = 0; i < changes.length; i++) {
            session.produce("company_cdf", List.of(changes[i][1]));
            String target = session.topic("company_bitemporal");
            session.runFlow(
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
                            .formatted(session.kafkaSource(), target, kafka.bootstrapServers()));
            session.show(
                    "company_bitemporal after " + changes[i][0],
                    session.read(target),
                    columns,
                    r -> true,
                    expected[i]);
        }
    }

    /** Company A's four changes: each one's title, then its change event. */
    private static String[][] companyChanges() {
        return new String[][] {
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
    }

    /** The reference's bitemporal table after each of {@link #companyChanges}. */
    private static String[][] companyAfterEachChange() {
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
        return new String[][] {{v1 + "null"}, two, three, four};
    }
}
