package dev.autocdc.embedded;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;

/**
 * {@code demo --target paimon}: the employees walkthrough ({@link EmployeeDemo#changeEvents}) from
 * a Kafka topic into an Apache Paimon table in a local warehouse, then the reference's questions
 * asked of that table in plain Flink SQL in batch mode, as a user would ask them in the SQL client.
 * Each answer is checked against the reference.
 */
final class LakeDemo {
    private final DemoSession session;
    private final PrintStream out;

    LakeDemo(DemoSession session) {
        this.session = session;
        this.out = session.out;
    }

    void employees(Path warehouse) throws Exception {
        out.println("\n### The employees walkthrough into a Paimon table (STORED AS BITEMPORAL)");
        session.kafka.createTopic("employees_lake_cdf", 3);
        session.produce("employees_lake_cdf", EmployeeDemo.changeEvents());
        String catalog =
                "CREATE CATALOG lake WITH ('type' = 'paimon', 'warehouse' = '"
                        + warehouse.toUri()
                        + "')";
        out.println("... warehouse " + warehouse);
        applyIntoLake(catalog);

        out.println("\nThe questions, in Flink SQL's batch mode over lake.hr.employees:");
        TableEnvironment batch = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        batch.executeSql(catalog);
        askTheReference(batch);
    }

    /** The flow from the change feed's topic into lake.hr.employees, in the catalog given. */
    private void applyIntoLake(String catalog) throws Exception {
        session.runFlow(
                catalog
                        + """
                        ;
                        CREATE DATABASE IF NOT EXISTS lake.hr;
                        CREATE TABLE employees_cdf (employeeId INT, name STRING, role STRING, operation STRING,
                          effectiveDate DATE, recordedAt TIMESTAMP(0))
                        WITH (%s, 'topic' = 'employees_lake_cdf', 'format' = 'json');
                        CREATE OR REFRESH STREAMING TABLE lake.hr.employees WITH ('bucket' = '1');
                        CREATE FLOW apply_cdc AS AUTO CDC INTO lake.hr.employees
                        FROM STREAM(employees_cdf)
                        KEYS (employeeId)
                        APPLY AS DELETE WHEN operation = "DELETE"
                        SEQUENCE BY effectiveDate
                        SYSTEM SEQUENCE BY recordedAt
                        COLUMNS * EXCEPT (operation, effectiveDate, recordedAt)
                        STORED AS BITEMPORAL;
                        """
                                .formatted(session.kafkaSource()));
    }

    /** The reference's questions of the table: its whole history, then the as-of questions. */
    private void askTheReference(TableEnvironment batch) throws Exception {
        ask(
                batch,
                "the whole history",
                "SELECT * FROM lake.hr.employees",
                "1|Chris|Owner|2025-01-01|null|2025-01-02 09:00:00|2025-03-01 09:00:00",
                "1|Chris|Owner|2025-01-01|2025-03-01|2025-03-01 09:00:00|2025-03-15 09:00:00",
                "1|Chris|Owner|2025-01-01|2025-02-01|2025-03-15 09:00:00|null",
                "1|Chris|Team Lead|2025-02-01|2025-03-01|2025-03-15 09:00:00|null",
                "1|Chris|Manager|2025-03-01|null|2025-03-01 09:00:00|2025-06-30 17:00:00",
                "1|Chris|Manager|2025-03-01|2025-06-30|2025-06-30 17:00:00|null",
                "2|Dana|Engineer|2025-01-01|null|2025-01-02 09:00:00|2025-04-01 09:00:00",
                "2|Dana|Analyst|2025-01-01|null|2025-04-01 09:00:00|null");
        ask(
                batch,
                "current state",
                "SELECT employeeId, name, role FROM lake.hr.employees"
                        + " WHERE __END_AT IS NULL AND __SYSTEM_END_AT IS NULL",
                "2|Dana|Analyst");
        String during =
                " WHERE __START_AT <= DATE '2025-02-15'"
                        + " AND (__END_AT IS NULL OR __END_AT > DATE '2025-02-15')";
        ask(
                batch,
                "what did we believe on 2025-03-10 about 2025-02-15",
                "SELECT employeeId, name, role FROM lake.hr.employees"
                        + during
                        + " AND __SYSTEM_START_AT <= TIMESTAMP '2025-03-10 00:00:00'"
                        + " AND (__SYSTEM_END_AT IS NULL"
                        + " OR __SYSTEM_END_AT > TIMESTAMP '2025-03-10 00:00:00')",
                "1|Chris|Owner",
                "2|Dana|Engineer");
        ask(
                batch,
                "what do we believe today about 2025-02-15",
                "SELECT employeeId, name, role FROM lake.hr.employees"
                        + during
                        + " AND __SYSTEM_END_AT IS NULL",
                "1|Chris|Team Lead",
                "2|Dana|Analyst");
    }

    /** Runs a query, prints its answer as a table and checks it against the reference. */
    private void ask(TableEnvironment batch, String title, String sql, String... expected)
            throws Exception {
        out.println("\n" + sql + ";");
        TableResult result = batch.executeSql(sql);
        List<String> columns = result.getResolvedSchema().getColumnNames();
        List<Map<String, String>> rows = DemoSession.rows(result);
        session.show(title, rows, columns, row -> true, expected);
    }
}
