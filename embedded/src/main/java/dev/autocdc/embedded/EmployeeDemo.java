package dev.autocdc.embedded;

import dev.autocdc.embedded.kafka.EmbeddedKafka;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The employees walkthroughs of the demo: semantics §12's change feed applied step by step to a
 * bitemporal target, with the reference's as-of queries, and the same history from nightly
 * snapshots (semantics §13 H), with the reason Dana's rows differ.
 */
final class EmployeeDemo {
    /** The columns of the bitemporal target, as the reference prints them. */
    private static final List<String> COLUMNS =
            List.of(
                    "employeeId",
                    "name",
                    "role",
                    "__START_AT",
                    "__END_AT",
                    "__SYSTEM_START_AT",
                    "__SYSTEM_END_AT");

    private final DemoSession session;
    private final PrintStream out;
    private final EmbeddedKafka kafka;

    EmployeeDemo(DemoSession session) {
        this.session = session;
        this.out = session.out;
        this.kafka = session.kafka;
    }

    void changeFeed() throws Exception {
        out.println("\n### The employees walkthrough: STORED AS BITEMPORAL, step by step");
        kafka.createTopic("employees_cdf", 3);
        String[][] steps = changeFeedSteps();
        String[][] expected = historyAfterEachStep();
        for (int s = 0; s < steps.length; s++) {
            String[] step = steps[s];
            session.produce("employees_cdf", Arrays.asList(step).subList(1, step.length));
            List<Map<String, String>> table = applyChangeFeed();
            session.show(
                    "employees_bitemporal after " + step[0],
                    table,
                    COLUMNS,
                    r -> true,
                    expected[s]);
            if (s == 3) {
                referenceQueries(table);
            }
        }
    }

    /** The change feed of semantics §12: each step's title, then its change events. */
    private static String[][] changeFeedSteps() {
        return new String[][] {
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
    }

    /** Every change event of the change feed, in the order of its steps. */
    static List<String> changeEvents() {
        List<String> events = new ArrayList<>();
        for (String[] step : changeFeedSteps()) {
            events.addAll(Arrays.asList(step).subList(1, step.length));
        }
        return events;
    }

    /** The reference's bitemporal table after each step of {@link #changeFeedSteps}. */
    private static String[][] historyAfterEachStep() {
        String ownerOpen = "1|Chris|Owner|2025-01-01|null|2025-01-02 09:00:00|";
        return new String[][] {
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
    }

    /** Runs the flow over the events so far; the target it wrote, as a table. */
    private List<Map<String, String>> applyChangeFeed() throws Exception {
        String target = session.topic("employees_bitemporal");
        session.runFlow(
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
                        .formatted(session.kafkaSource(), target, kafka.bootstrapServers()));
        return session.read(target);
    }

    /**
     * The reference's as-of queries on the table after step 5: the current state, the business
     * history as believed now, and what was believed on a day about a day.
     */
    private void referenceQueries(List<Map<String, String>> table) {
        out.println("\nThe queries of the reference, on the table after step 5:");
        session.show(
                "current state: __END_AT IS NULL AND __SYSTEM_END_AT IS NULL",
                table,
                COLUMNS.subList(0, 3),
                r -> r.get("__END_AT") == null && r.get("__SYSTEM_END_AT") == null,
                "1|Chris|Manager",
                "2|Dana|Analyst");
        session.show(
                "business-time history as believed now: __SYSTEM_END_AT IS NULL",
                table,
                COLUMNS.subList(0, 5),
                r -> r.get("__SYSTEM_END_AT") == null,
                "1|Chris|Owner|2025-01-01|2025-02-01",
                "1|Chris|Team Lead|2025-02-01|2025-03-01",
                "1|Chris|Manager|2025-03-01|null",
                "2|Dana|Analyst|2025-01-01|null");
        session.show(
                "what did we believe on 2025-03-10 00:00:00 about 2025-02-15",
                table,
                COLUMNS.subList(0, 3),
                r ->
                        during(r, "__START_AT", "__END_AT", "2025-02-15")
                                && during(
                                        r,
                                        "__SYSTEM_START_AT",
                                        "__SYSTEM_END_AT",
                                        "2025-03-10 00:00:00"),
                "1|Chris|Owner",
                "2|Dana|Engineer");
        session.show(
                "what do we believe today about 2025-02-15",
                table,
                COLUMNS.subList(0, 3),
                r ->
                        during(r, "__START_AT", "__END_AT", "2025-02-15")
                                && r.get("__SYSTEM_END_AT") == null,
                "1|Chris|Team Lead",
                "2|Dana|Analyst");
    }

    /**
     * semantics §13 H: the employees as four whole snapshots instead of a change feed, with FROM
     * SNAPSHOT: nothing says what changed; a role that differs opens a version, and a snapshot that
     * restates an older date corrects the belief about it.
     */
    void snapshots() throws Exception {
        out.println(
                "\n### The employees from nightly snapshots: FROM SNAPSHOT, STORED AS BITEMPORAL");
        String source = session.topic("employee_snapshots");
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
        session.produce(source, rows);
        String target = session.topic("employees_from_snapshots");
        session.runFlow(
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
                        .formatted(
                                session.kafkaSource(), source, target, kafka.bootstrapServers()));
        session.show(
                "employees_from_snapshots after four snapshots (semantics §13 H)",
                session.read(target),
                COLUMNS,
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

    /** semantics §9: start <= at < coalesce(end, +inf); ISO text compares like the values. */
    private static boolean during(Map<String, String> row, String start, String end, String at) {
        String e = row.get(end);
        return row.get(start).compareTo(at) <= 0 && (e == null || e.compareTo(at) > 0);
    }

    /** One change event of the employees walkthrough, as JSON. */
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
}
