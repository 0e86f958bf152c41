package dev.autocdc.embedded;

import dev.autocdc.embedded.postgres.PostgresServer;
import java.io.PrintStream;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;

/**
 * {@code demo --source postgres}: a real PostgreSQL database as the source. Its changes are
 * captured by Debezium ({@link CaptureProcess}) into a Kafka topic as Kafka Connect's JSON, a flow
 * reads the topic with {@code 'format' = 'debezium-json'} and keeps the accounts' SCD type 2
 * history in a Paimon table, while the database changes: inserts, a transaction that updates one
 * row twice, a delete, an update of a primary key, and a column added with ALTER TABLE. After each
 * step the table's current rows are awaited until they equal the database's, and its history is
 * checked against the reference typed below.
 *
 * <p>The history is sequenced by each change's log sequence number in the database's write-ahead
 * log (LSN, from the change's {@code source} block): it orders the changes of one row as the
 * database committed them, including two updates in one transaction, which share a commit time.
 */
final class PostgresDemo {
    /** The topic Debezium writes the table's changes to: prefix, schema, table. */
    static final String TOPIC = "pg.public.accounts";

    /** REPLICA IDENTITY FULL: an update's and a delete's change carry the row as it was. */
    static final List<String> TABLE =
            List.of(
                    "CREATE TABLE accounts (id INT PRIMARY KEY, owner TEXT NOT NULL,"
                            + " balance NUMERIC(12, 2))",
                    "ALTER TABLE accounts REPLICA IDENTITY FULL");

    private static final Duration CATCH_UP = Duration.ofSeconds(90);

    private final DemoSession session;
    private final PrintStream out;
    private final Path dir;

    PostgresDemo(DemoSession session, Path dir) {
        this.session = session;
        this.out = session.out;
        this.dir = dir;
    }

    /**
     * The flow: the topic as a {@code debezium-json} table whose LSN is a computed column of the
     * change's source block, into {@code lake.bank.accounts_history}. The column {@code tier},
     * which the database gains later, is declared from the start: null until a change carries it.
     */
    static String flow(Path warehouse, String bootstrapServers) {
        return """
        CREATE CATALOG lake WITH ('type' = 'paimon', 'warehouse' = '%s');
        CREATE DATABASE IF NOT EXISTS lake.bank;
        CREATE TABLE accounts_cdc (
          id INT, owner STRING, balance DECIMAL(12, 2), tier STRING,
          source MAP<STRING, STRING> METADATA FROM 'value.source.properties' VIRTUAL,
          lsn AS CAST(source['lsn'] AS BIGINT))
        WITH ('connector' = 'kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s',
              'properties.group.id' = 'autocdc-accounts', 'scan.startup.mode' = 'earliest-offset',
              'format' = 'debezium-json');
        CREATE OR REFRESH STREAMING TABLE lake.bank.accounts_history WITH ('bucket' = '1');
        CREATE FLOW accounts AS AUTO CDC INTO lake.bank.accounts_history
        FROM STREAM(accounts_cdc)
        KEYS (id)
        SEQUENCE BY lsn
        COLUMNS * EXCEPT (source, lsn)
        STORED AS SCD TYPE 2;
        """
                .formatted(warehouse.toUri(), TOPIC, bootstrapServers);
    }

    void run() throws Exception {
        out.println(
                "\n### A PostgreSQL database, captured by Debezium, into a Paimon table (STORED AS"
                        + " SCD TYPE 2)");
        out.println("Starting PostgreSQL (wal_level = logical) ...");
        try (PostgresServer db = PostgresServer.start();
                Connection sql = db.connect()) {
            execute(sql, TABLE);
            out.println("... table accounts, REPLICA IDENTITY FULL");
            session.kafka.createTopic(TOPIC, 2);
            out.println("Starting Debezium's PostgreSQL connector in a JVM of its own ...");
            Path warehouse = dir.resolve("warehouse");
            try (CaptureProcess capture =
                            CaptureProcess.start(
                                    "127.0.0.1:" + db.port() + "/postgres",
                                    "public.accounts",
                                    session.kafka.bootstrapServers(),
                                    "pg",
                                    dir);
                    RunningFlow flow =
                            RunningFlow.start(
                                    flow(warehouse, session.kafka.bootstrapServers()),
                                    2,
                                    Duration.ofSeconds(1))) {
                out.println(
                        "... capturing into topic "
                                + TOPIC
                                + "; the flow runs into lake.bank.accounts_history ("
                                + warehouse
                                + ")");
                TableEnvironment batch = TableEnvironment.create(EnvironmentSettings.inBatchMode());
                batch.executeSql(
                        "CREATE CATALOG lake WITH ('type' = 'paimon', 'warehouse' = '"
                                + warehouse.toUri()
                                + "')");
                steps(sql, batch);
            }
        }
    }

    private void steps(Connection sql, TableEnvironment batch) throws Exception {
        step(
                sql,
                batch,
                "three accounts are opened",
                List.of(
                        "INSERT INTO accounts VALUES (1, 'Ana', 100.00), (2, 'Ben', 250.00),"
                                + " (3, 'Chloe', 75.50)"),
                "1|Ana|100.00|null|yes",
                "2|Ben|250.00|null|yes",
                "3|Chloe|75.50|null|yes");
        step(
                sql,
                batch,
                "one transaction updates account 1 twice",
                List.of(
                        "BEGIN",
                        "UPDATE accounts SET balance = 120.00 WHERE id = 1",
                        "UPDATE accounts SET balance = 90.00 WHERE id = 1",
                        "COMMIT"),
                "1|Ana|100.00|null|no",
                "1|Ana|120.00|null|no",
                "1|Ana|90.00|null|yes",
                "2|Ben|250.00|null|yes",
                "3|Chloe|75.50|null|yes");
        step(
                sql,
                batch,
                "account 3 is closed (a delete)",
                List.of("DELETE FROM accounts WHERE id = 3"),
                "1|Ana|100.00|null|no",
                "1|Ana|120.00|null|no",
                "1|Ana|90.00|null|yes",
                "2|Ben|250.00|null|yes",
                "3|Chloe|75.50|null|no");
        step(
                sql,
                batch,
                "account 2 is renumbered 20 (an update of the primary key: a delete and an"
                        + " insert)",
                List.of("UPDATE accounts SET id = 20 WHERE id = 2"),
                "1|Ana|100.00|null|no",
                "1|Ana|120.00|null|no",
                "1|Ana|90.00|null|yes",
                "2|Ben|250.00|null|no",
                "20|Ben|250.00|null|yes",
                "3|Chloe|75.50|null|no");
        step(
                sql,
                batch,
                "ALTER TABLE adds a column while the flow runs; account 1 gets a tier",
                List.of(
                        "ALTER TABLE accounts ADD COLUMN tier TEXT",
                        "UPDATE accounts SET tier = 'gold' WHERE id = 1"),
                "1|Ana|100.00|null|no",
                "1|Ana|120.00|null|no",
                "1|Ana|90.00|null|no",
                "1|Ana|90.00|gold|yes",
                "2|Ben|250.00|null|no",
                "20|Ben|250.00|null|yes",
                "3|Chloe|75.50|null|no");
    }

    /**
     * Runs the statements in the database, waits until the history's current rows equal the
     * table's, and shows the history beside the reference.
     */
    private void step(
            Connection sql,
            TableEnvironment batch,
            String title,
            List<String> statements,
            String... expected)
            throws Exception {
        out.println("\n-- " + title);
        for (String s : statements) {
            out.println(s + ";");
        }
        execute(sql, statements);
        List<String> want = current(sql);
        long deadline = System.nanoTime() + CATCH_UP.toNanos();
        List<Map<String, String>> history = history(batch);
        while (!currentOf(history).equals(want) && System.nanoTime() < deadline) {
            Thread.sleep(500);
            history = history(batch);
        }
        session.show(
                "lake.bank.accounts_history (current: __END_AT IS NULL)",
                history,
                List.of("id", "owner", "balance", "tier", "current"),
                row -> true,
                expected);
    }

    /** The history: id, owner, balance, tier, whether the row is current, __START_AT. */
    static List<Map<String, String>> history(TableEnvironment batch) throws Exception {
        List<Map<String, String>> rows =
                DemoSession.rows(
                        batch.executeSql(
                                "SELECT id, owner, balance, tier, __START_AT, __END_AT"
                                        + " FROM lake.bank.accounts_history"));
        for (Map<String, String> r : rows) {
            r.put("current", r.get("__END_AT") == null ? "yes" : "no");
        }
        return rows;
    }

    /** The current rows of a history as id|owner|balance|tier, sorted. */
    static List<String> currentOf(List<Map<String, String>> history) {
        List<String> rows = new ArrayList<>();
        for (Map<String, String> r : history) {
            if (r.get("__END_AT") == null) {
                rows.add(
                        r.get("id")
                                + "|"
                                + r.get("owner")
                                + "|"
                                + r.get("balance")
                                + "|"
                                + r.get("tier"));
            }
        }
        rows.sort(null);
        return rows;
    }

    /** The database's accounts as id|owner|balance|tier, sorted (tier null before it exists). */
    static List<String> current(Connection sql) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Statement s = sql.createStatement();
                ResultSet r = s.executeQuery("SELECT * FROM accounts")) {
            ResultSetMetaData meta = r.getMetaData();
            boolean tier = meta.getColumnCount() > 3;
            while (r.next()) {
                rows.add(
                        r.getInt("id")
                                + "|"
                                + r.getString("owner")
                                + "|"
                                + r.getBigDecimal("balance")
                                + "|"
                                + (tier ? r.getString("tier") : null));
            }
        }
        rows.sort(null);
        return rows;
    }

    static void execute(Connection sql, List<String> statements) throws SQLException {
        try (Statement s = sql.createStatement()) {
            for (String statement : statements) {
                s.execute(statement);
            }
        }
    }
}
