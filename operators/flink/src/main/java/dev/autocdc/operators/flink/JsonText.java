package dev.autocdc.operators.flink;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * Renders a row of the core's Java values as JSON text, for dead-letter payloads: numbers and
 * booleans as JSON numbers and booleans (NaN and infinities as strings), BYTES as base64, ROW as an
 * array, ARRAY as an array, MAP as an object with string keys, everything else as its ISO text.
 */
final class JsonText {

    private JsonText() {}

    static String object(List<String> names, Object[] values) {
        StringBuilder b = new StringBuilder("{");
        for (int i = 0; i < values.length; i++) {
            if (i > 0) {
                b.append(", ");
            }
            string(b, names.get(i));
            b.append(": ");
            value(b, values[i]);
        }
        return b.append('}').toString();
    }

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
