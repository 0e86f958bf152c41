package dev.autocdc.job.plan;

import dev.autocdc.operators.flink.spec.EngineSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The statement that asks a running flow to erase one key: {@code INSERT INTO <its erasures table>
 * (<key columns>) VALUES (<values cast to the flow's key types>)}, for {@code CALL
 * autocdc.sys.erase_key} ({@link Erasures} reads such rows in the job). Stateless.
 */
public final class ErasureInsert {
    private ErasureInsert() {}

    /**
     * @param key each key column's value (a String, Number, Boolean or null), by column name (case
     *     ignored when no column has the exact name)
     * @throws IllegalArgumentException when the flow has no erasures table, or {@code key} lacks
     *     one of its key columns or names another, naming them
     */
    public static String of(PlannedFlow flow, Map<String, Object> key) {
        String table = flow.erasuresTable();
        String name = flow.flow().name();
        if (table == null) {
            throw new IllegalArgumentException(
                    "flow "
                            + name
                            + " has no erasures table; declare one and name it before the flow:"
                            + " SET 'autocdc."
                            + name
                            + ".erasures-table' = '<table>' (docs/operations.md#erase-a-key)");
        }
        EngineSpec spec = flow.spec();
        List<String> columns = new ArrayList<>();
        List<String> values = new ArrayList<>();
        for (int k : spec.flow().keyIndexes()) {
            String column = spec.flow().columnNames().get(k);
            String given = find(key, column);
            if (given == null) {
                throw wrongKey(name, spec, key, "lacks " + column);
            }
            columns.add(FlowPlanner.quote(column));
            values.add(
                    "CAST("
                            + literal(key.get(given))
                            + " AS "
                            + spec.targetType().getTypeAt(k).copy(true).asSerializableString()
                            + ")");
        }
        if (key.size() != columns.size()) {
            throw wrongKey(name, spec, key, "names other columns too");
        }
        return "INSERT INTO "
                + FlowPlanner.quoteName(table)
                + " ("
                + String.join(", ", columns)
                + ") VALUES ("
                + String.join(", ", values)
                + ")";
    }

    /** The name in {@code key} of {@code column}: as written, else ignoring case; null: none. */
    private static String find(Map<String, Object> key, String column) {
        if (key.containsKey(column)) {
            return column;
        }
        for (String k : key.keySet()) {
            if (k.toLowerCase(Locale.ROOT).equals(column.toLowerCase(Locale.ROOT))) {
                return k;
            }
        }
        return null;
    }

    private static String literal(Object value) {
        if (value == null) {
            return "NULL";
        }
        if (value instanceof Number || value instanceof Boolean) {
            return value.toString();
        }
        return "'" + value.toString().replace("'", "''") + "'";
    }

    private static IllegalArgumentException wrongKey(
            String flow, EngineSpec spec, Map<String, Object> key, String problem) {
        return new IllegalArgumentException(
                "the key of flow " + flow + " is " + keyColumns(spec) + "; " + key + " " + problem);
    }

    private static List<String> keyColumns(EngineSpec spec) {
        List<String> keys = new ArrayList<>();
        for (int k : spec.flow().keyIndexes()) {
            keys.add(spec.flow().columnNames().get(k));
        }
        return keys;
    }
}
