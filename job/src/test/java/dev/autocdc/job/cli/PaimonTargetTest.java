package dev.autocdc.job.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataField;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A target in an Apache Paimon catalog (a catalog that makes its own tables): the flow creates the
 * primary-key table on its first run and uses it as it is on the next, and the history is read back
 * with Paimon's own Java API, not through Flink.
 */
class PaimonTargetTest {
    @TempDir Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    /** The users walkthrough's SCD type 2 table (SPEC §4), typed by hand. */
    private static final List<String> USERS_SCD2 =
            List.of(
                    "123|Isabel|Monterrey|1|5",
                    "123|Isabel|Chihuahua|5|6",
                    "124|Raul|Oaxaca|1|null",
                    "125|Mercedes|Tijuana|2|5",
                    "125|Mercedes|Mexicali|5|6",
                    "125|Mercedes|Guadalajara|6|null",
                    "126|Lily|Cancun|2|null");

    /**
     * With Paimon's table options in {@code WITH}, and without any: a target named in the catalog
     * is its table either way (not one the CLI keeps).
     */
    @ParameterizedTest
    @ValueSource(strings = {" WITH ('bucket' = '1')", ""})
    void theFlowCreatesThePrimaryKeyTableThenUsesItAsItIs(String options) throws Exception {
        Path warehouse = dir.resolve("warehouse");
        Path flow = dir.resolve("users.sql");
        Files.writeString(
                flow,
                """
                CREATE CATALOG lake WITH ('type' = 'paimon', 'warehouse' = '%s');
                CREATE DATABASE IF NOT EXISTS lake.hr;

                CREATE TABLE users_cdf (userId INT, name STRING, city STRING, operation STRING, sequenceNum INT)
                WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');

                CREATE OR REFRESH STREAMING TABLE lake.hr.users_history%s;

                CREATE FLOW apply_cdc AS AUTO CDC INTO lake.hr.users_history
                FROM STREAM(users_cdf)
                KEYS (userId)
                APPLY AS DELETE WHEN operation = "DELETE"
                SEQUENCE BY sequenceNum
                COLUMNS * EXCEPT (operation, sequenceNum)
                STORED AS SCD TYPE 2;
                """
                        .formatted(warehouse.toUri(), CliTest.usersFeed(), options));

        assertThat(cli("validate", "--flow", flow.toString())).as(err.toString()).isZero();
        assertThat(out.toString()).contains("target: table lake.hr.users_history");
        assertThat(cli("run", "--flow", flow.toString())).as(err.toString()).isZero();
        assertThat(read(warehouse)).containsExactlyInAnyOrderElementsOf(USERS_SCD2);
        assertThat(primaryKey(warehouse)).containsExactly("userId", "__START_AT");

        // the second run finds the table and upserts the same history into it
        assertThat(cli("run", "--flow", flow.toString())).as(err.toString()).isZero();
        assertThat(read(warehouse)).containsExactlyInAnyOrderElementsOf(USERS_SCD2);
    }

    private int cli(String... args) {
        return new AutoCdcCli(
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(args);
    }

    private static Table table(Catalog catalog) throws Exception {
        return catalog.getTable(Identifier.create("hr", "users_history"));
    }

    private static Catalog catalog(Path warehouse) {
        Options options = new Options();
        options.set("warehouse", warehouse.toUri().toString());
        return CatalogFactory.createCatalog(CatalogContext.create(options));
    }

    private static List<String> primaryKey(Path warehouse) throws Exception {
        try (Catalog catalog = catalog(warehouse)) {
            return table(catalog).primaryKeys();
        }
    }

    /** Every row of the table's latest snapshot, merged per key, as id|name|city|start|end. */
    private static List<String> read(Path warehouse) throws Exception {
        List<String> rows = new ArrayList<>();
        try (Catalog catalog = catalog(warehouse)) {
            Table table = table(catalog);
            List<DataField> fields = table.rowType().getFields();
            assertThat(fields.stream().map(DataField::name))
                    .containsExactly("userId", "name", "city", "__START_AT", "__END_AT");
            ReadBuilder read = table.newReadBuilder();
            try (RecordReader<InternalRow> reader =
                    read.newRead().createReader(read.newScan().plan())) {
                reader.forEachRemaining(
                        row ->
                                rows.add(
                                        row.getInt(0)
                                                + "|"
                                                + row.getString(1)
                                                + "|"
                                                + row.getString(2)
                                                + "|"
                                                + row.getInt(3)
                                                + "|"
                                                + (row.isNullAt(4) ? "null" : row.getInt(4))));
            }
        }
        return rows;
    }
}
