package dev.autocdc.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataField;

/**
 * A flow's target in an Apache Paimon or Apache Iceberg catalog on the local disk, read back in
 * batch with the format's own Java API (not through Flink), as the reference model writes rows:
 * integers, strings and nulls, in the table's column order.
 */
final class LakeTables {
    private LakeTables() {}

    /** A lakehouse format: its catalog options and the target's table options. */
    enum Lake {
        PAIMON("'type' = 'paimon'", "'bucket' = '2'"),
        ICEBERG(
                "'type' = 'iceberg', 'catalog-type' = 'hadoop'",
                "'format-version' = '2', 'write.upsert.enabled' = 'true'");

        final String catalogOptions;
        final String tableOptions;

        Lake(String catalogOptions, String tableOptions) {
            this.catalogOptions = catalogOptions;
            this.tableOptions = tableOptions;
        }

        /** {@code CREATE CATALOG name ...} with its warehouse, and {@code name.db} in it. */
        String createCatalog(String name, Path warehouse) {
            return "CREATE CATALOG %s WITH (%s, 'warehouse' = '%s');\n"
                            .formatted(name, catalogOptions, warehouse.toUri())
                    + "CREATE DATABASE IF NOT EXISTS %s.db;\n".formatted(name);
        }
    }

    /**
     * Catalog {@code lake_<lake>} and an SCD type 2 flow {@code <table>_<lake>_flow} into its table
     * {@code db.<table>}, which the first run creates, from source {@code src} (id, v, op, seq,
     * sys).
     */
    static String scd2Flow(Lake lake, Path warehouse, String table) {
        String catalog = "lake_" + lake.name().toLowerCase(Locale.ROOT);
        return lake.createCatalog(catalog, warehouse)
                + """
                CREATE OR REFRESH STREAMING TABLE %1$s.db.%2$s WITH (%3$s);
                CREATE FLOW %2$s_%1$s_flow AS AUTO CDC INTO %1$s.db.%2$s FROM STREAM(src)
                KEYS (id) APPLY AS DELETE WHEN op = 'DELETE' SEQUENCE BY seq
                COLUMNS * EXCEPT (op, seq, sys) STORED AS SCD TYPE 2;
                """
                        .formatted(catalog, table, lake.tableOptions);
    }

    /** Table {@code db.<table>}'s rows, one list per row (duplicates kept); no table yet: none. */
    static List<List<Object>> read(Lake lake, Path warehouse, String table) throws Exception {
        return lake == Lake.PAIMON ? readPaimon(warehouse, table) : readIceberg(warehouse, table);
    }

    /**
     * Polls table {@code db.<table>} until it holds exactly the expected rows, each once (both
     * formats commit at checkpoints); fails with the difference, and duplicates, after the timeout.
     * A read that fails (a file compacted away under it) is tried again.
     */
    static void await(
            Lake lake, Path warehouse, String table, Set<List<Object>> expected, Duration timeout)
            throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<List<Object>> rows = List.of();
        Exception failed = null;
        while (System.nanoTime() < deadline) {
            try {
                rows = read(lake, warehouse, table);
                failed = null;
            } catch (Exception e) {
                failed = e;
            }
            if (rows.size() == expected.size() && new HashSet<>(rows).equals(expected)) {
                return;
            }
            Thread.sleep(1_000);
        }
        if (failed != null) {
            throw failed;
        }
        Set<List<Object>> missing = new HashSet<>(expected);
        rows.forEach(missing::remove);
        List<List<Object>> extra = new ArrayList<>(rows);
        expected.forEach(extra::remove); // once each: what is left is extra or a duplicate
        assertThat(rows)
                .as(
                        "the %s table %s: %d rows missing (for example %s), %d rows too many or"
                                + " twice (for example %s)",
                        lake,
                        table,
                        missing.size(),
                        missing.stream().limit(10).toList(),
                        extra.size(),
                        extra.stream().limit(10).toList())
                .containsExactlyInAnyOrderElementsOf(expected);
    }

    /**
     * The commits the table holds so far: Paimon's latest snapshot id; Iceberg's snapshots, with
     * its latest snapshot's totals of data files, position deletes and equality deletes (a position
     * delete is a row written and removed again before the commit). No table: "none".
     */
    static String commits(Lake lake, Path warehouse, String table) throws Exception {
        if (lake == Lake.PAIMON) {
            Options options = new Options();
            options.set("warehouse", warehouse.toUri().toString());
            try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(options))) {
                return catalog.getTable(Identifier.create("db", table))
                        .latestSnapshot()
                        .map(s -> "snapshot " + s.id())
                        .orElse("none");
            } catch (Catalog.TableNotExistException notYet) {
                return "none";
            }
        }
        try (HadoopCatalog catalog =
                new HadoopCatalog(new Configuration(), warehouse.toUri().toString())) {
            TableIdentifier id = TableIdentifier.of("db", table);
            if (!catalog.tableExists(id) || catalog.loadTable(id).currentSnapshot() == null) {
                return "none";
            }
            org.apache.iceberg.Table t = catalog.loadTable(id);
            int snapshots = 0;
            for (var ignored : t.snapshots()) {
                snapshots++;
            }
            var summary = t.currentSnapshot().summary();
            return "%d snapshots, %s data files, %s position deletes, %s equality deletes"
                    .formatted(
                            snapshots,
                            summary.get("total-data-files"),
                            summary.get("total-position-deletes"),
                            summary.get("total-equality-deletes"));
        }
    }

    private static List<List<Object>> readIceberg(Path warehouse, String table) throws Exception {
        List<List<Object>> rows = new ArrayList<>();
        try (HadoopCatalog catalog =
                new HadoopCatalog(new Configuration(), warehouse.toUri().toString())) {
            TableIdentifier id = TableIdentifier.of("db", table);
            if (!catalog.tableExists(id)) {
                return rows;
            }
            org.apache.iceberg.Table t = catalog.loadTable(id);
            int columns = t.schema().columns().size();
            try (CloseableIterable<Record> records = IcebergGenerics.read(t).build()) {
                for (Record r : records) {
                    List<Object> row = new ArrayList<>(columns);
                    for (int i = 0; i < columns; i++) {
                        Object v = r.get(i);
                        row.add(v instanceof CharSequence s ? s.toString() : v);
                    }
                    rows.add(row);
                }
            }
        }
        return rows;
    }

    private static List<List<Object>> readPaimon(Path warehouse, String table) throws Exception {
        Options options = new Options();
        options.set("warehouse", warehouse.toUri().toString());
        List<List<Object>> rows = new ArrayList<>();
        try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(options))) {
            Table t;
            try {
                t = catalog.getTable(Identifier.create("db", table));
            } catch (Catalog.TableNotExistException notYet) {
                return rows;
            }
            List<DataField> fields = t.rowType().getFields();
            InternalRow.FieldGetter[] getters = new InternalRow.FieldGetter[fields.size()];
            for (int i = 0; i < getters.length; i++) {
                getters[i] = InternalRow.createFieldGetter(fields.get(i).type(), i);
            }
            ReadBuilder read = t.newReadBuilder();
            try (RecordReader<InternalRow> reader =
                    read.newRead().createReader(read.newScan().plan())) {
                reader.forEachRemaining(
                        r -> {
                            List<Object> row = new ArrayList<>(getters.length);
                            for (InternalRow.FieldGetter g : getters) {
                                Object v = g.getFieldOrNull(r);
                                row.add(v instanceof BinaryString s ? s.toString() : v);
                            }
                            rows.add(row);
                        });
            }
        }
        return rows;
    }
}
