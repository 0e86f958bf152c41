package dev.autocdc.job.plan;

import dev.autocdc.operators.core.Values;
import dev.autocdc.operators.flink.runtime.JsonRows;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.spec.TypeMapping;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * A target table materialized from its changelog (by primary key), and its JSON-lines form: one
 * object per row, keys the target's column names, rows sorted by the primary key (nulls first).
 * Values: numbers as JSON numbers, STRING as strings, BOOLEAN as true/false, DATE "YYYY-MM-DD",
 * TIME "HH:MM:SS", TIMESTAMP "YYYY-MM-DD HH:MM:SS", TIMESTAMP_LTZ the same in UTC followed by "Z"
 * (fractional seconds only when not zero, trailing zeros removed), BYTES base64, ROW an object by
 * field name, ARRAY an array, MAP an object, null null.
 */
public final class TargetTable {
    private final RowType type;
    private final int[] primaryKey;
    private final RowData.FieldGetter[] getters;

    /**
     * Each row by its primary key, the row held as its JSON line (a compact string: memory follows
     * the table's text, about a third of the row as Java objects) with its key values for sorting.
     */
    private final Map<List<Object>, String> rows = new HashMap<>();

    public TargetTable(EngineSpec spec) {
        this.type = spec.targetType();
        this.primaryKey = spec.targetPrimaryKey();
        this.getters = new RowData.FieldGetter[type.getFieldCount()];
        for (int i = 0; i < getters.length; i++) {
            getters[i] = RowData.createFieldGetter(type.getTypeAt(i), i);
        }
    }

    /** Applies one changelog row. */
    public void apply(RowData row) {
        Object[] values = new Object[type.getFieldCount()];
        for (int i = 0; i < values.length; i++) {
            values[i] = TypeMapping.toJava(type.getTypeAt(i), getters[i].getFieldOrNull(row));
        }
        List<Object> key = new ArrayList<>(primaryKey.length);
        for (int i : primaryKey) {
            key.add(withValueEquality(values[i]));
        }
        switch (row.getRowKind()) {
            case INSERT:
            case UPDATE_AFTER:
                rows.put(key, jsonLine(values));
                break;
            default:
                rows.remove(key);
        }
    }

    /** The number of rows. */
    public int size() {
        return rows.size();
    }

    /**
     * A key value that equals another of the same content: a ROW (an {@code Object[]}) and BYTES (a
     * {@code byte[]}) have identity equality in Java, so a sequence STRUCT in the primary key would
     * never match its own retraction.
     */
    private static Object withValueEquality(Object v) {
        if (v instanceof Object[] fields) {
            List<Object> list = new ArrayList<>(fields.length);
            for (Object f : fields) {
                list.add(withValueEquality(f));
            }
            return list;
        }
        if (v instanceof byte[] bytes) {
            return ByteBuffer.wrap(bytes.clone());
        }
        return v;
    }

    /** The table as JSON lines (each line ends with a newline), sorted by primary key. */
    public String toJsonLines() {
        StringWriter out = new StringWriter();
        try {
            writeJsonLines(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    /** Writes the table as JSON lines, sorted by primary key with nulls first, line by line. */
    public void writeJsonLines(Writer out) throws IOException {
        List<Map.Entry<List<Object>, String>> sorted = new ArrayList<>(rows.entrySet());
        sorted.sort(
                (a, b) -> {
                    for (int i = 0; i < primaryKey.length; i++) {
                        int c = Values.compare(keyValue(a.getKey(), i), keyValue(b.getKey(), i));
                        if (c != 0) {
                            return c;
                        }
                    }
                    return 0;
                });
        for (Map.Entry<List<Object>, String> row : sorted) {
            out.write(row.getValue());
            out.write('\n');
        }
    }

    /** A key value as {@link Values#compare} takes it (undoing {@link #withValueEquality}). */
    private static Object keyValue(List<Object> key, int i) {
        return withIdentity(key.get(i));
    }

    private static Object withIdentity(Object v) {
        if (v instanceof List<?> fields) {
            Object[] row = new Object[fields.size()];
            for (int i = 0; i < row.length; i++) {
                row[i] = withIdentity(fields.get(i));
            }
            return row;
        }
        if (v instanceof ByteBuffer bytes) {
            return bytes.array();
        }
        return v;
    }

    public RowType type() {
        return type;
    }

    private String jsonLine(Object[] row) {
        return JsonRows.object(type.getFieldNames(), type.getChildren(), row);
    }
}
