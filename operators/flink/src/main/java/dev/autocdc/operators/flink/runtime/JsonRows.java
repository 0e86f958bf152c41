package dev.autocdc.operators.flink.runtime;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonFactory;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonGenerator;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.StreamWriteFeature;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.util.Separators;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;

/**
 * The project's one JSON writer, for the rows of a target ({@code --materialize}), dead letters and
 * their payloads: an object per row, written with Jackson's generator (Flink's shaded copy), each
 * value as Flink's {@code json} format writes a value of its type with the default options, so that
 * a payload can be written back to a JSON source as it is:
 *
 * <ul>
 *   <li>numbers and booleans as JSON numbers and booleans; DECIMAL in plain notation; NaN and the
 *       infinities as strings;
 *   <li>DATE as {@code yyyy-MM-dd}; TIME as {@code HH:mm:ss[.fraction]}; TIMESTAMP as {@code
 *       yyyy-MM-dd HH:mm:ss[.fraction]} and TIMESTAMP_LTZ the same in UTC with {@code Z} (the
 *       format's {@code SQL} standard), the fraction without trailing zeros;
 *   <li>BINARY and VARBINARY as base64; ROW as an object of its fields; ARRAY as an array; MAP as
 *       an object whose keys are the keys' text;
 *   <li>a value without a type (a null type) by its Java class the same way, a ROW as an array.
 * </ul>
 *
 * <p>The text is one line, {@code {"a": 1, "b": [1, 2]}}: a space after each colon and comma.
 */
public final class JsonRows {
    private static final JsonFactory FACTORY =
            JsonFactory.builder().enable(StreamWriteFeature.WRITE_BIGDECIMAL_AS_PLAIN).build();

    private static final Separators SEPARATORS =
            Separators.createDefaultInstance()
                    .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
                    .withObjectEntrySpacing(Separators.Spacing.AFTER)
                    .withArrayValueSpacing(Separators.Spacing.AFTER)
                    .withObjectEmptySeparator("")
                    .withArrayEmptySeparator("");

    private JsonRows() {}

    /** A row as an object: {@code values[i]} under {@code names[i]}, typed by {@code types[i]}. */
    public static String object(List<String> names, List<LogicalType> types, Object[] values) {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            g.setPrettyPrinter(
                    new DefaultPrettyPrinter(SEPARATORS)
                            .withObjectIndenter(DefaultPrettyPrinter.NopIndenter.instance)
                            .withArrayIndenter(DefaultPrettyPrinter.NopIndenter.instance));
            fields(g, names, types, values);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringWriter does not fail
        }
        return out.toString();
    }

    /** A row of untyped values as an object. */
    public static String object(List<String> names, Object[] values) {
        return object(names, null, values);
    }

    private static void fields(
            JsonGenerator g, List<String> names, List<LogicalType> types, Object[] values)
            throws IOException {
        g.writeStartObject();
        for (int i = 0; i < values.length; i++) {
            g.writeFieldName(names.get(i));
            value(g, types == null ? null : types.get(i), values[i]);
        }
        g.writeEndObject();
    }

    private static void value(JsonGenerator g, LogicalType type, Object v) throws IOException {
        if (v == null) {
            g.writeNull();
        } else if (type instanceof RowType row && v instanceof Object[] fields) {
            fields(g, row.getFieldNames(), row.getChildren(), fields);
        } else if (type instanceof ArrayType array && v instanceof List<?> items) {
            g.writeStartArray();
            for (Object item : items) {
                value(g, array.getElementType(), item);
            }
            g.writeEndArray();
        } else if (type instanceof MapType map && v instanceof Map<?, ?> entries) {
            g.writeStartObject();
            for (Map.Entry<?, ?> e : entries.entrySet()) {
                g.writeFieldName(keyText(map.getKeyType(), e.getKey()));
                value(g, map.getValueType(), e.getValue());
            }
            g.writeEndObject();
        } else {
            scalar(g, v);
        }
    }

    /** A value by its class: the core's Java values, and untyped ROW, ARRAY and MAP values. */
    private static void scalar(JsonGenerator g, Object v) throws IOException {
        if (v instanceof Boolean b) {
            g.writeBoolean(b);
        } else if (v instanceof BigDecimal d) {
            g.writeNumber(d);
        } else if (v instanceof Byte || v instanceof Short || v instanceof Integer) {
            g.writeNumber(((Number) v).intValue());
        } else if (v instanceof Long l) {
            g.writeNumber(l);
        } else if (v instanceof BigInteger i) {
            g.writeNumber(i);
        } else if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                g.writeString(v.toString());
            } else if (v instanceof Float f) {
                g.writeNumber(f);
            } else {
                g.writeNumber(d);
            }
        } else if (v instanceof byte[] bytes) {
            g.writeBinary(bytes);
        } else if (v instanceof LocalDateTime t) {
            g.writeString(t.toLocalDate() + " " + time(t.toLocalTime()));
        } else if (v instanceof Instant t) {
            LocalDateTime utc = LocalDateTime.ofInstant(t, ZoneOffset.UTC);
            g.writeString(utc.toLocalDate() + " " + time(utc.toLocalTime()) + "Z");
        } else if (v instanceof LocalTime t) {
            g.writeString(time(t));
        } else if (v instanceof Object[] fields) {
            value(g, null, Arrays.asList(fields));
        } else if (v instanceof List<?> items) {
            g.writeStartArray();
            for (Object item : items) {
                value(g, null, item);
            }
            g.writeEndArray();
        } else if (v instanceof Map<?, ?> entries) {
            g.writeStartObject();
            for (Map.Entry<?, ?> e : entries.entrySet()) {
                g.writeFieldName(String.valueOf(e.getKey()));
                value(g, null, e.getValue());
            }
            g.writeEndObject();
        } else {
            g.writeString(v.toString()); // DATE, and the text of any other value
        }
    }

    /** A MAP key's text: as its value would be written, without the quotes of a string. */
    private static String keyText(LogicalType type, Object key) {
        if (key == null) {
            return "null";
        }
        if (key instanceof String s) {
            return s;
        }
        String json = object(List.of("k"), List.of(type), new Object[] {key});
        String text = json.substring("{\"k\": ".length(), json.length() - 1);
        return text.startsWith("\"") ? text.substring(1, text.length() - 1) : text;
    }

    /** HH:mm:ss, with the fraction only when not zero, its trailing zeros removed. */
    static String time(LocalTime t) {
        String s = String.format("%02d:%02d:%02d", t.getHour(), t.getMinute(), t.getSecond());
        if (t.getNano() == 0) {
            return s;
        }
        return s + "." + String.format("%09d", t.getNano()).replaceAll("0+$", "");
    }
}
