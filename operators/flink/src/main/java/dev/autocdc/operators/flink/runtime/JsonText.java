package dev.autocdc.operators.flink.runtime;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;

/**
 * Renders a row of the core's Java values as JSON text, for dead-letter payloads, as Flink's {@code
 * json} format writes a row of those types with its default options, so that a payload can be
 * written back to a JSON source as it is: numbers and booleans as JSON numbers and booleans (NaN
 * and infinities as strings), BYTES as base64, ROW as an object of its fields, ARRAY as an array,
 * MAP as an object with string keys, TIMESTAMP as {@code yyyy-MM-dd HH:mm:ss[.fraction]} and
 * TIMESTAMP_LTZ the same with {@code Z} (the format's {@code SQL} standard), everything else as its
 * ISO text. Without a type (a null type), a ROW is an array of its fields.
 */
final class JsonText {

    private JsonText() {}

    static String object(List<String> names, Object[] values) {
        return object(names, null, values);
    }

    /**
     * @param types the values' types, or null
     */
    static String object(List<String> names, List<LogicalType> types, Object[] values) {
        StringBuilder b = new StringBuilder("{");
        for (int i = 0; i < values.length; i++) {
            if (i > 0) {
                b.append(", ");
            }
            string(b, names.get(i));
            b.append(": ");
            value(b, types == null ? null : types.get(i), values[i]);
        }
        return b.append('}').toString();
    }

    /** {@code v} of type {@code type} (null: untyped). */
    static void value(StringBuilder b, LogicalType type, Object v) {
        if (v == null || type == null) {
            value(b, v);
        } else if (type instanceof RowType row && v instanceof Object[] fields) {
            b.append(object(row.getFieldNames(), row.getChildren(), fields));
        } else if (type instanceof ArrayType array && v instanceof List<?> items) {
            b.append('[');
            for (int i = 0; i < items.size(); i++) {
                if (i > 0) {
                    b.append(", ");
                }
                value(b, array.getElementType(), items.get(i));
            }
            b.append(']');
        } else if (type instanceof MapType map && v instanceof Map<?, ?> entries) {
            b.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : entries.entrySet()) {
                if (!first) {
                    b.append(", ");
                }
                first = false;
                string(b, String.valueOf(e.getKey()));
                b.append(": ");
                value(b, map.getValueType(), e.getValue());
            }
            b.append('}');
        } else if (v instanceof LocalDateTime t) {
            string(b, sqlTimestamp(t));
        } else if (v instanceof Instant t) {
            string(b, sqlTimestamp(LocalDateTime.ofInstant(t, ZoneOffset.UTC)) + "Z");
        } else {
            value(b, v);
        }
    }

    /** {@code yyyy-MM-dd HH:mm:ss}, then the fraction of the second without trailing zeros. */
    private static String sqlTimestamp(LocalDateTime t) {
        String text = t.toLocalDate() + " " + SECONDS.format(t);
        int nanos = t.getNano();
        if (nanos == 0) {
            return text;
        }
        String fraction = String.format("%09d", nanos).replaceAll("0+$", "");
        return text + "." + fraction;
    }

    private static final DateTimeFormatter SECONDS = DateTimeFormatter.ofPattern("HH:mm:ss");

    static void value(StringBuilder b, Object v) {
        if (v == null) {
            b.append("null");
        } else if (v instanceof Boolean
                || v instanceof Byte
                || v instanceof Short
                || v instanceof Integer
                || v instanceof Long
                || v instanceof BigDecimal) {
            b.append(v instanceof BigDecimal ? ((BigDecimal) v).toPlainString() : v.toString());
        } else if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                string(b, v.toString());
            } else {
                b.append(v);
            }
        } else if (v instanceof byte[]) {
            string(b, Base64.getEncoder().encodeToString((byte[]) v));
        } else if (v instanceof Object[]) {
            list(b, Arrays.asList((Object[]) v));
        } else if (v instanceof List) {
            list(b, (List<?>) v);
        } else if (v instanceof Map) {
            b.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                if (!first) {
                    b.append(", ");
                }
                first = false;
                string(b, String.valueOf(e.getKey()));
                b.append(": ");
                value(b, e.getValue());
            }
            b.append('}');
        } else {
            string(b, v.toString());
        }
    }

    private static void list(StringBuilder b, List<?> items) {
        b.append('[');
        for (int i = 0; i < items.size(); i++) {
            if (i > 0) {
                b.append(", ");
            }
            value(b, items.get(i));
        }
        b.append(']');
    }

    static void string(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"':
                    b.append("\\\"");
                    break;
                case '\\':
                    b.append("\\\\");
                    break;
                case '\n':
                    b.append("\\n");
                    break;
                case '\r':
                    b.append("\\r");
                    break;
                case '\t':
                    b.append("\\t");
                    break;
                default:
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
            }
        }
        b.append('"');
    }
}
