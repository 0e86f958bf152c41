package dev.autocdc.job.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataTypeRoot;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Targets in the catalogs of the two lakehouse formats Flink writes, Apache Paimon and Apache
 * Iceberg: each target type's walkthrough written by the CLI into a table the flow creates on its
 * first run and uses as it is on the next, read back with the format's own Java API (not through
 * Flink), and the bitemporal walkthrough's as-of questions answered by plain SQL over the table in
 * Flink's batch mode.
 */
class LakeTargetsTest {
    @TempDir Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    /** A lakehouse format: its catalog, the target's table options, and its own reader. */
    enum Lake {
        PAIMON("'type' = 'paimon'", "'bucket' = '1'") {
            @Override
            Written read(Path warehouse, String table) throws Exception {
                Options options = new Options();
                options.set("warehouse", warehouse.toUri().toString());
                try (Catalog catalog =
                        CatalogFactory.createCatalog(CatalogContext.create(options))) {
                    Table t = catalog.getTable(Identifier.create("hr", table));
                    List<DataField> fields = t.rowType().getFields();
                    InternalRow.FieldGetter[] getters = new InternalRow.FieldGetter[fields.size()];
                    for (int i = 0; i < getters.length; i++) {
                        getters[i] = InternalRow.createFieldGetter(fields.get(i).type(), i);
                    }
                    List<String> rows = new ArrayList<>();
                    ReadBuilder read = t.newReadBuilder();
                    try (RecordReader<InternalRow> reader =
                            read.newRead().createReader(read.newScan().plan())) {
                        reader.forEachRemaining(
                                row -> {
                                    List<Object> values = new ArrayList<>();
                                    for (int i = 0; i < getters.length; i++) {
                                        Object v = getters[i].getFieldOrNull(row);
                                        if (v != null
                                                && fields.get(i).type().getTypeRoot()
                                                        == DataTypeRoot.DATE) {
                                            v = LocalDate.ofEpochDay((Integer) v);
                                        } else if (v instanceof Timestamp ts) {
                                            v = ts.toLocalDateTime();
                                        }
                                        values.add(v);
                                    }
                                    rows.add(joined(values));
                                });
                    }
                    return new Written(
                            fields.stream().map(DataField::name).toList(), t.primaryKeys(), rows);
                }
            }
        },
        ICEBERG(
                "'type' = 'iceberg', 'catalog-type' = 'hadoop'",
                "'format-version' = '2', 'write.upsert.enabled' = 'true'") {
            @Override
            Written read(Path warehouse, String table) throws Exception {
                try (HadoopCatalog catalog =
                        new HadoopCatalog(
                                new org.apache.hadoop.conf.Configuration(),
                                warehouse.toUri().toString())) {
                    org.apache.iceberg.Table t = catalog.loadTable(TableIdentifier.of("hr", table));
                    List<Types.NestedField> fields = t.schema().columns();
                    List<String> key = new ArrayList<>();
                    fields.stream()
                            .map(Types.NestedField::name)
                            .filter(t.schema().identifierFieldNames()::contains)
                            .forEach(key::add);
                    List<String> rows = new ArrayList<>();
                    try (CloseableIterable<Record> records = IcebergGenerics.read(t).build()) {
                        for (Record r : records) {
                            List<Object> values = new ArrayList<>();
                            for (int i = 0; i < fields.size(); i++) {
                                values.add(r.get(i));
                            }
                            rows.add(joined(values));
                        }
                    }
                    return new Written(
                            fields.stream().map(Types.NestedField::name).toList(), key, rows);
                }
            }
        };

        final String catalogOptions;
        final String tableOptions;

        Lake(String catalogOptions, String tableOptions) {
            this.catalogOptions = catalogOptions;
            this.tableOptions = tableOptions;
        }

        /**
         * The table's columns, its primary key (in column order) and its rows, as the lake has
         * them.
         */
        abstract Written read(Path warehouse, String table) throws Exception;

        /** Where the catalog keeps table {@code hr.<table>} in the warehouse. */
        Path tableDirectory(Path warehouse, String table) {
            return this == PAIMON
                    ? warehouse.resolve("hr.db").resolve(table)
                    : warehouse.resolve("hr").resolve(table);
        }

        String createCatalog(Path warehouse) {
            return "CREATE CATALOG lake WITH ("
                    + catalogOptions
                    + ", 'warehouse' = '"
                    + warehouse.toUri()
                    + "');";
        }
    }

    record Written(List<String> columns, List<String> key, List<String> rows) {}

    /**
     * A walkthrough: its source, its flow clauses, and its target as semantics §3-5 say, typed by
     * hand.
     */
    enum Walkthrough {
        SCD1(
                "users",
                List.of("userId", "name", "city"),
                List.of("userId"),
                List.of("124|Raul|Oaxaca", "125|Mercedes|Guadalajara", "126|Lily|Cancun")),
        SCD2(
                "users",
                List.of("userId", "name", "city", "__START_AT", "__END_AT"),
                List.of("userId", "__START_AT"),
                List.of(
                        "123|Isabel|Monterrey|1|5",
                        "123|Isabel|Chihuahua|5|6",
                        "124|Raul|Oaxaca|1|null",
                        "125|Mercedes|Tijuana|2|5",
                        "125|Mercedes|Mexicali|5|6",
                        "125|Mercedes|Guadalajara|6|null",
                        "126|Lily|Cancun|2|null")),
        BITEMPORAL(
                "employees",
                List.of(
                        "employeeId",
                        "name",
                        "role",
                        "__START_AT",
                        "__END_AT",
                        "__SYSTEM_START_AT",
                        "__SYSTEM_END_AT"),
                List.of("employeeId", "__START_AT", "__SYSTEM_START_AT"),
                List.of(
                        "1|Chris|Owner|2025-01-01|null|2025-01-02 09:00:00|2025-03-01 09:00:00",
                        "1|Chris|Owner|2025-01-01|2025-03-01|2025-03-01 09:00:00|2025-03-15"
                                + " 09:00:00",
                        "1|Chris|Owner|2025-01-01|2025-02-01|2025-03-15 09:00:00|null",
                        "1|Chris|Team Lead|2025-02-01|2025-03-01|2025-03-15 09:00:00|null",
                        "1|Chris|Manager|2025-03-01|null|2025-03-01 09:00:00|2025-06-30 17:00:00",
                        "1|Chris|Manager|2025-03-01|2025-06-30|2025-06-30 17:00:00|null",
                        "2|Dana|Engineer|2025-01-01|null|2025-01-02 09:00:00|2025-04-01 09:00:00",
                        "2|Dana|Analyst|2025-01-01|null|2025-04-01 09:00:00|null"));

        final String subject;
        final List<String> columns;
        final List<String> key;
        final List<String> rows;

        Walkthrough(String subject, List<String> columns, List<String> key, List<String> rows) {
            this.subject = subject;
            this.columns = columns;
            this.key = key;
            this.rows = rows;
        }

        String table() {
            return subject + "_" + name().toLowerCase();
        }
    }

    /** The employees walkthrough's events: both timelines out of order, a correction, a delete. */
    private static final List<String> EMPLOYEES =
            List.of(
                    employee(1, "Chris", "Owner", "INSERT", "2025-01-01", "2025-01-02 09:00:00"),
                    employee(2, "Dana", "Engineer", "INSERT", "2025-01-01", "2025-01-02 09:00:00"),
                    employee(1, "Chris", "Manager", "UPDATE", "2025-03-01", "2025-03-01 09:00:00"),
                    employee(
                            1, "Chris", "Team Lead", "UPDATE", "2025-02-01", "2025-03-15 09:00:00"),
                    employee(2, "Dana", "Analyst", "UPDATE", "2025-01-01", "2025-04-01 09:00:00"),
                    employee(1, null, null, "DELETE", "2025-06-30", "2025-06-30 17:00:00"));

    private static String employee(
            int id, String name, String role, String op, String effective, String recorded) {
        return "{\"employeeId\": %d, \"name\": %s, \"role\": %s, \"operation\": \"%s\","
                        .formatted(id, quoted(name), quoted(role), op)
                + " \"effectiveDate\": \"%s\", \"recordedAt\": \"%s\"}"
                        .formatted(effective, recorded);
    }

    private static String quoted(String s) {
        return s == null ? "null" : "\"" + s + "\"";
    }

    static Stream<Arguments> lakesAndTypes() {
        List<Arguments> all = new ArrayList<>();
        for (Lake lake : Lake.values()) {
            for (Walkthrough w : Walkthrough.values()) {
                all.add(Arguments.of(lake, w));
            }
        }
        return all.stream();
    }

    @ParameterizedTest
    @MethodSource("lakesAndTypes")
    void eachTypeIsCreatedInTheLakeThenUsedAsItIs(Lake lake, Walkthrough w) throws Exception {
        Path warehouse = dir.resolve("warehouse");
        Path flow = flow(lake, w, warehouse, " WITH (" + lake.tableOptions + ")");

        // validate creates no target table: the missing one is reported
        assertThat(cli("validate", "--flow", flow.toString())).as(err.toString()).isZero();
        assertThat(out.toString())
                .contains(
                        "target: table lake.hr."
                                + w.table()
                                + " in its catalog, not there yet: run creates it with the"
                                + " flow's columns and primary key",
                        "changelog mode: upsert");
        assertThat(lake.tableDirectory(warehouse, w.table())).doesNotExist();

        assertThat(cli("run", "--flow", flow.toString())).as(err.toString()).isZero();
        assertThat(lake.tableDirectory(warehouse, w.table())).isDirectory();
        Written written = lake.read(warehouse, w.table());
        assertThat(written.columns()).containsExactlyElementsOf(w.columns);
        assertThat(written.key()).containsExactlyElementsOf(w.key);
        assertThat(written.rows()).containsExactlyInAnyOrderElementsOf(w.rows);

        // the second run finds the table and upserts the same history into it
        out.reset();
        assertThat(cli("validate", "--flow", flow.toString())).as(err.toString()).isZero();
        assertThat(out.toString())
                .contains("target: table lake.hr." + w.table() + " in its catalog\n");
        assertThat(cli("run", "--flow", flow.toString())).as(err.toString()).isZero();
        assertThat(lake.read(warehouse, w.table()).rows())
                .containsExactlyInAnyOrderElementsOf(w.rows);
    }

    /**
     * PARTITIONED BY on a table the flow creates: by a key column (named in any case) it is the
     * table's partitioning and the history is written as without it; by a value column (whose
     * versions would span partitions) it is refused before any table is created.
     */
    @ParameterizedTest
    @EnumSource(Lake.class)
    void aCreatedTableIsPartitionedByKeyColumnsOnly(Lake lake) throws Exception {
        Path warehouse = dir.resolve("warehouse");
        Walkthrough w = Walkthrough.SCD2;
        String with = " WITH (" + lake.tableOptions + ")";
        Path refused = flow(lake, w, warehouse, " PARTITIONED BY (city)" + with);
        assertThat(cli("run", "--flow", refused.toString())).isEqualTo(1);
        assertThat(err.toString())
                .contains("PARTITIONED BY: column city is not one of the flow's KEYS (userId)");
        assertThat(lake.tableDirectory(warehouse, w.table())).doesNotExist();

        err.reset();
        Path flow = flow(lake, w, warehouse, " PARTITIONED BY (userid)" + with); // any case
        assertThat(cli("run", "--flow", flow.toString())).as(err.toString()).isZero();
        assertThat(partitionKeys(lake, warehouse, w.table())).containsExactly("userId");
        assertThat(lake.read(warehouse, w.table()).rows())
                .containsExactlyInAnyOrderElementsOf(w.rows);
    }

    /** The partition columns of {@code hr.<table>}, as the lake's own API has them. */
    private static List<String> partitionKeys(Lake lake, Path warehouse, String table)
            throws Exception {
        if (lake == Lake.PAIMON) {
            Options options = new Options();
            options.set("warehouse", warehouse.toUri().toString());
            try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(options))) {
                return catalog.getTable(Identifier.create("hr", table)).partitionKeys();
            }
        }
        try (HadoopCatalog catalog =
                new HadoopCatalog(
                        new org.apache.hadoop.conf.Configuration(), warehouse.toUri().toString())) {
            org.apache.iceberg.Table t = catalog.loadTable(TableIdentifier.of("hr", table));
            List<String> names = new ArrayList<>();
            t.spec().fields().forEach(f -> names.add(t.schema().findColumnName(f.sourceId())));
            return names;
        }
    }

    /** Paimon's default table options (a bucket of -1: one writer job) serve a flow too. */
    @ParameterizedTest
    @EnumSource(value = Lake.class, names = "PAIMON")
    void withoutTableOptions(Lake lake) throws Exception {
        Path warehouse = dir.resolve("warehouse");
        Path flow = flow(lake, Walkthrough.SCD2, warehouse, "");
        assertThat(cli("run", "--flow", flow.toString())).as(err.toString()).isZero();
        assertThat(lake.read(warehouse, Walkthrough.SCD2.table()).rows())
                .containsExactlyInAnyOrderElementsOf(Walkthrough.SCD2.rows);
    }

    /** A table that is there with other columns is refused, the first difference named. */
    @ParameterizedTest
    @EnumSource(Lake.class)
    void anExistingTableOfOtherColumnsIsRefused(Lake lake) throws Exception {
        Path warehouse = dir.resolve("warehouse");
        TableEnvironment tables = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        tables.executeSql(lake.createCatalog(warehouse).replace(";", ""));
        tables.executeSql("CREATE DATABASE lake.hr");
        tables.executeSql(
                "CREATE TABLE lake.hr.users_scd2 (userId INT NOT NULL, name STRING, town STRING,"
                        + " __START_AT INT NOT NULL, __END_AT INT,"
                        + " PRIMARY KEY (userId, __START_AT) NOT ENFORCED)");
        Path flow = flow(lake, Walkthrough.SCD2, warehouse, "");
        assertThat(cli("validate", "--flow", flow.toString())).isEqualTo(1);
        assertThat(err.toString())
                .contains(
                        "target lake.hr.users_scd2 declares the columns [userId, name, town,"
                                + " __START_AT, __END_AT], but the flow writes [userId, name, city,"
                                + " __START_AT, __END_AT]");
    }

    /**
     * The employees walkthrough's questions, asked in plain SQL of the lake table in Flink's batch
     * mode, as a user would in the SQL client.
     */
    @ParameterizedTest
    @EnumSource(Lake.class)
    void asOfQuestionsInBatchSql(Lake lake) throws Exception {
        Path warehouse = dir.resolve("warehouse");
        Walkthrough w = Walkthrough.BITEMPORAL;
        Path flow = flow(lake, w, warehouse, " WITH (" + lake.tableOptions + ")");
        assertThat(cli("run", "--flow", flow.toString())).as(err.toString()).isZero();

        TableEnvironment batch = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        batch.executeSql(lake.createCatalog(warehouse).replace(";", ""));
        String table = "lake.hr." + w.table();
        String during =
                " __START_AT <= DATE '2025-02-15' AND (__END_AT IS NULL OR __END_AT > DATE"
                        + " '2025-02-15')";
        assertThat(
                        query(
                                batch,
                                "SELECT employeeId, name, role FROM "
                                        + table
                                        + " WHERE __END_AT IS NULL AND __SYSTEM_END_AT IS NULL"))
                .as("current state: Chris has left")
                .containsExactly("2|Dana|Analyst");
        assertThat(
                        query(
                                batch,
                                "SELECT employeeId, name, role FROM "
                                        + table
                                        + " WHERE"
                                        + during
                                        + " AND __SYSTEM_START_AT <= TIMESTAMP '2025-03-10"
                                        + " 00:00:00' AND (__SYSTEM_END_AT IS NULL OR"
                                        + " __SYSTEM_END_AT > TIMESTAMP '2025-03-10 00:00:00')"
                                        + " ORDER BY employeeId"))
                .as("what did we believe on 2025-03-10 about 2025-02-15")
                .containsExactly("1|Chris|Owner", "2|Dana|Engineer");
        assertThat(
                        query(
                                batch,
                                "SELECT employeeId, name, role FROM "
                                        + table
                                        + " WHERE"
                                        + during
                                        + " AND __SYSTEM_END_AT IS NULL ORDER BY employeeId"))
                .as("what do we believe today about 2025-02-15")
                .containsExactly("1|Chris|Team Lead", "2|Dana|Analyst");
        assertThat(
                        query(
                                batch,
                                "SELECT role, __START_AT, __END_AT FROM "
                                        + table
                                        + " WHERE employeeId = 1 AND __SYSTEM_END_AT IS NULL"
                                        + " ORDER BY __START_AT"))
                .as("Chris's business-time history as believed now")
                .containsExactly(
                        "Owner|2025-01-01|2025-02-01",
                        "Team Lead|2025-02-01|2025-03-01",
                        "Manager|2025-03-01|2025-06-30");
    }

    private Path flow(Lake lake, Walkthrough w, Path warehouse, String with) throws Exception {
        Path flow = dir.resolve(w.table() + ".sql");
        String target = "lake.hr." + w.table();
        String body;
        if (w == Walkthrough.BITEMPORAL) {
            Path events = dir.resolve("employees.json");
            Files.write(events, EMPLOYEES);
            body =
                    """
                    CREATE TABLE employees_cdf (employeeId INT, name STRING, role STRING, operation STRING,
                      effectiveDate DATE, recordedAt TIMESTAMP(0))
                    WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');
                    CREATE OR REFRESH STREAMING TABLE %s%s;
                    CREATE FLOW apply_cdc AS AUTO CDC INTO %s
                    FROM STREAM(employees_cdf)
                    KEYS (employeeId)
                    APPLY AS DELETE WHEN operation = "DELETE"
                    SEQUENCE BY effectiveDate
                    SYSTEM SEQUENCE BY recordedAt
                    COLUMNS * EXCEPT (operation, effectiveDate, recordedAt)
                    STORED AS BITEMPORAL;
                    """
                            .formatted(events, target, with, target);
        } else {
            body =
                    """
                    CREATE TABLE users_cdf (userId INT, name STRING, city STRING, operation STRING, sequenceNum INT)
                    WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');
                    CREATE OR REFRESH STREAMING TABLE %s%s;
                    CREATE FLOW apply_cdc AS AUTO CDC INTO %s
                    FROM STREAM(users_cdf)
                    KEYS (userId)
                    APPLY AS DELETE WHEN operation = "DELETE"
                    SEQUENCE BY sequenceNum
                    COLUMNS * EXCEPT (operation, sequenceNum)
                    STORED AS SCD TYPE %s;
                    """
                            .formatted(
                                    CliTest.usersFeed(),
                                    target,
                                    with,
                                    target,
                                    w == Walkthrough.SCD1 ? "1" : "2");
        }
        Files.writeString(
                flow,
                lake.createCatalog(warehouse)
                        + "\nCREATE DATABASE IF NOT EXISTS lake.hr;\n\n"
                        + body);
        return flow;
    }

    private int cli(String... args) {
        return new AutoCdcCli(
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(args);
    }

    private static List<String> query(TableEnvironment batch, String sql) throws Exception {
        List<String> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = batch.executeSql(sql).collect()) {
            while (it.hasNext()) {
                Row r = it.next();
                List<Object> values = new ArrayList<>();
                for (int i = 0; i < r.getArity(); i++) {
                    values.add(r.getField(i));
                }
                rows.add(joined(values));
            }
        }
        return rows;
    }

    private static final DateTimeFormatter SECONDS =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

    /**
     * Values as the expected rows write them: dates ISO, timestamps to the second, null as null.
     */
    private static String joined(List<Object> values) {
        List<String> parts = new ArrayList<>();
        for (Object v : values) {
            parts.add(
                    v instanceof LocalDateTime t
                            ? t.format(SECONDS)
                            : v instanceof LocalDate d ? d.toString() : String.valueOf(v));
        }
        return String.join("|", parts);
    }
}
