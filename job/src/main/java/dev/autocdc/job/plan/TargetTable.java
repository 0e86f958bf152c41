package dev.autocdc.job.plan;

import dev.autocdc.operators.core.Values;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.spec.TypeMapping;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
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
        StringBuilder b = new StringBuilder();
        object(b, type, row);
        return b.toString();
    }

    static void value(StringBuilder b, LogicalType t, Object v) {
        if (v == null) {
            b.append("null");
            return;
        }
        switch (t.getTypeRoot()) {
            case DECIMAL:
                b.append(((BigDecimal) v).toPlainString());
                break;
            case TINYINT:
            case SMALLINT:
            case INTEGER:
            case BIGINT:
            case BOOLEAN:
                b.append(v);
                break;
            case FLOAT:
            case DOUBLE:
                {
                    double d = ((Number) v).doubleValue();
                    if (Double.isNaN(d) || Double.isInfinite(d)) {
                        string(b, v.toString());
                    } else {
                        b.append(v);
                    }
                    break;
                }
            case DATE:
                string(b, v.toString());
                break;
            case TIME_WITHOUT_TIME_ZONE:
                string(b, time((LocalTime) v));
                break;
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                {
                    LocalDateTime ts = (LocalDateTime) v;
                    string(b, ts.toLocalDate() + " " + time(ts.toLocalTime()));
                    break;
                }
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                {
                    LocalDateTime ts = LocalDateTime.ofInstant((Instant) v, ZoneOffset.UTC);
                    string(b, ts.toLocalDate() + " " + time(ts.toLocalTime()) + "Z");
                    break;
                }
            case BINARY:
            case VARBINARY:
                string(b, Base64.getEncoder().encodeToString((byte[]) v));
                break;
            case ROW:
                object(b, (RowType) t, (Object[]) v);
                break;
            case ARRAY:
                array(b, ((ArrayType) t).getElementType(), (List<?>) v);
                break;
            case MAP:
                map(b, (MapType) t, (Map<?, ?>) v);
                break;
            default:
                string(b, v.toString());
        }
    }

    /** A row (the table's or a ROW value's) as an object by field name. */
    private static void object(StringBuilder b, RowType t, Object[] fields) {
        b.append('{');
        for (int i = 0; i < fields.length; i++) {
            if (i > 0) {
                b.append(", ");
            }
            string(b, t.getFieldNames().get(i));
            b.append(": ");
            value(b, t.getTypeAt(i), fields[i]);
        }
        b.append('}');
    }

    private static void array(StringBuilder b, LogicalType element, List<?> list) {
        b.append('[');
        for (int i = 0; i < list.size(); i++) {
            if (i > 0) {
                b.append(", ");
            }
            value(b, element, list.get(i));
        }
        b.append(']');
    }

    /** A MAP as an object, each key as its value's text. */
    private static void map(StringBuilder b, MapType t, Map<?, ?> map) {
        b.append('{');
        boolean first = true;
        for (Map.Entry<?, ?> e : map.entrySet()) {
            if (!first) {
                b.append(", ");
            }
            first = false;
            StringBuilder k = new StringBuilder();
            value(k, t.getKeyType(), e.getKey());
            String key = k.toString();
            string(b, key.startsWith("\"") ? key.substring(1, key.length() - 1) : key);
            b.append(": ");
            value(b, t.getValueType(), e.getValue());
        }
        b.append('}');
    }

    /** HH:MM:SS, with the fraction only when not zero, trailing zeros removed. */
    static String time(LocalTime t) {
        String s = String.format("%02d:%02d:%02d", t.getHour(), t.getMinute(), t.getSecond());
        if (t.getNano() == 0) {
            return s;
        }
        String fraction = String.format("%09d", t.getNano()).replaceAll("0+$", "");
        return s + "." + fraction;
    }

    static void string(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        b.append('"');
    }
}
