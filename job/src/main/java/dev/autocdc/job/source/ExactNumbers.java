package dev.autocdc.job.source;

import java.io.IOException;
import java.io.Serializable;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.DeserializationFeature;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.JsonNodeFactory;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * Finds the numbers of a JSON record that its column's type would not hold exactly (SPEC §11).
 * Flink's JSON formats coerce: {@code 22.7} read as INT is 22, {@code 3e9} wraps, a DECIMAL(p, s)
 * rounds to its scale and turns into null past its precision. Such a record is bad input, never a
 * row with another key or sequence.
 *
 * <p>A number, or a string that parses as one (Flink reads {@code "42"} as 42), is inexact when:
 *
 * <ul>
 *   <li>TINYINT, SMALLINT, INT, BIGINT: it has a fraction ({@code 22.7}; {@code 22.0} is 22), or is
 *       outside the type's range; BIGINT also past 2^53 when written with a point or an exponent
 *       (Flink reads those through a double);
 *   <li>DECIMAL(p, s): it has more than s digits after the point (it would be rounded), or more
 *       than p - s before it (it would become null).
 * </ul>
 *
 * FLOAT and DOUBLE are approximate by definition and not checked; nor are numbers nested in ROW,
 * ARRAY or MAP columns. Where the columns are: the top-level object for {@code json}; the {@code
 * before} and {@code after} objects for {@code debezium-json} (under {@code payload} with {@code
 * debezium-json.schema-include}).
 */
final class ExactNumbers implements Serializable {
    private static final long serialVersionUID = 1L;

    private final String[] names;
    private final LogicalType[] types;
    private final List<List<String>> objects;

    /** The longest run of digits every checked column holds whatever the digits (see below). */
    private final int safeDigits;

    private transient ObjectMapper mapper;

    private ExactNumbers(String[] names, LogicalType[] types, List<List<String>> objects) {
        this.names = names;
        this.types = types;
        this.objects = objects;
        int safe = Integer.MAX_VALUE;
        for (LogicalType t : types) {
            safe =
                    Math.min(
                            safe,
                            switch (t.getTypeRoot()) {
                                case TINYINT -> 2;
                                case SMALLINT -> 4;
                                case INTEGER -> 9;
                                case BIGINT -> 18;
                                default ->
                                        ((DecimalType) t).getPrecision()
                                                - ((DecimalType) t).getScale();
                            });
        }
        this.safeDigits = safe;
    }

    /**
     * The checker of a format's records, or null when the format is not one whose numbers it reads
     * or no column needs checking.
     *
     * @param format the source's format identifier
     * @param schemaInclude debezium-json's {@code schema-include} option
     * @param physical the columns the format fills
     */
    static ExactNumbers of(String format, boolean schemaInclude, RowType physical) {
        List<List<String>> objects;
        if (format.equals("json")) {
            objects = List.of(List.of());
        } else if (format.equals("debezium-json")) {
            List<String> root = schemaInclude ? List.of("payload") : List.of();
            objects = new ArrayList<>();
            for (String side : List.of("before", "after")) {
                List<String> path = new ArrayList<>(root);
                path.add(side);
                objects.add(List.copyOf(path));
            }
        } else {
            return null;
        }
        List<String> names = new ArrayList<>();
        List<LogicalType> types = new ArrayList<>();
        for (RowType.RowField f : physical.getFields()) {
            switch (f.getType().getTypeRoot()) {
                case TINYINT, SMALLINT, INTEGER, BIGINT, DECIMAL -> {
                    names.add(f.getName());
                    types.add(f.getType());
                }
                default -> {}
            }
        }
        if (names.isEmpty()) {
            return null;
        }
        return new ExactNumbers(
                names.toArray(new String[0]), types.toArray(new LogicalType[0]), objects);
    }

    /**
     * The first inexact number of a record the format has parsed, as a message naming the column,
     * or null when all are exact.
     */
    String check(byte[] record) throws IOException {
        if (!mayBeInexact(record)) {
            return null;
        }
        if (mapper == null) {
            // numbers as written: no double in between (1e1000000 would be Infinity, 0.1 rounded)
            mapper =
                    new ObjectMapper()
                            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                            .setNodeFactory(JsonNodeFactory.withExactBigDecimals(true));
        }
        JsonNode parsed = mapper.readTree(record);
        // a JSON array holds several records (Flink's json format reads each)
        List<JsonNode> roots = new ArrayList<>();
        if (parsed != null && parsed.isArray()) {
            parsed.forEach(roots::add);
        } else {
            roots.add(parsed);
        }
        for (JsonNode root : roots) {
            for (List<String> path : objects) {
                JsonNode node = root;
                for (String step : path) {
                    node = node == null ? null : node.get(step);
                }
                if (!(node instanceof ObjectNode object)) {
                    continue;
                }
                for (int i = 0; i < names.length; i++) {
                    String problem = problem(object.get(names[i]), types[i]);
                    if (problem != null) {
                        return "column "
                                + names[i]
                                + " ("
                                + types[i].asSummaryString()
                                + ") cannot hold "
                                + object.get(names[i])
                                + " exactly: "
                                + problem;
                    }
                }
            }
        }
        return null;
    }

    /**
     * Whether the record could hold an inexact number, scanning its bytes: a number can only be
     * inexact with a point, an exponent (an {@code e} right after a digit), or more digits in a row
     * than every checked column holds ({@code safeDigits}). Most records have none of these and are
     * not parsed a second time; a digit run inside a string only costs the full check.
     */
    boolean mayBeInexact(byte[] record) {
        int run = 0;
        for (byte b : record) {
            if (b >= '0' && b <= '9') {
                if (++run > safeDigits) {
                    return true;
                }
            } else {
                if (b == '.' || ((b == 'e' || b == 'E') && run > 0)) {
                    return true; // a point, or an exponent right after a digit
                }
                run = 0;
            }
        }
        return false;
    }

    /** Why a JSON value does not fit the type exactly, or null. */
    static String problem(JsonNode value, LogicalType type) {
        if (value == null || value.isNull()) {
            return null;
        }
        BigDecimal v;
        if (value.isNumber()) {
            v = value.decimalValue();
        } else if (value.isTextual()) {
            try {
                v = new BigDecimal(value.asText().trim());
            } catch (NumberFormatException e) {
                return null; // not a number: the format's own parse error
            }
        } else {
            return null;
        }
        switch (type.getTypeRoot()) {
            case TINYINT:
                return integral(v, BigInteger.valueOf(Byte.MIN_VALUE), BigInteger.valueOf(127));
            case SMALLINT:
                return integral(v, BigInteger.valueOf(Short.MIN_VALUE), BigInteger.valueOf(32767));
            case INTEGER:
                return integral(
                        v,
                        BigInteger.valueOf(Integer.MIN_VALUE),
                        BigInteger.valueOf(Integer.MAX_VALUE));
            case BIGINT:
                {
                    String outside =
                            integral(
                                    v,
                                    BigInteger.valueOf(Long.MIN_VALUE),
                                    BigInteger.valueOf(Long.MAX_VALUE));
                    if (outside == null
                            && value.isFloatingPointNumber()
                            && v.abs().compareTo(BigDecimal.valueOf(1L << 53)) > 0) {
                        // Flink reads a number written with a point or exponent through a double
                        return "past 2^53 with a point or an exponent it is read through a double";
                    }
                    return outside;
                }
            case DECIMAL:
                {
                    DecimalType d = (DecimalType) type;
                    BigDecimal stripped = v.stripTrailingZeros();
                    if (stripped.scale() > d.getScale()) {
                        return "it has more than " + d.getScale() + " digits after the point";
                    }
                    if (stripped.precision() - stripped.scale() > d.getPrecision() - d.getScale()) {
                        return "it has more than "
                                + (d.getPrecision() - d.getScale())
                                + " digits before the point";
                    }
                    return null;
                }
            default:
                return null;
        }
    }

    private static String integral(BigDecimal v, BigInteger min, BigInteger max) {
        if (v.precision() - v.scale() > 20) { // more digits than any BIGINT, even 1e1000000
            return "it is outside " + min + " to " + max;
        }
        BigInteger whole;
        try {
            whole = v.toBigIntegerExact();
        } catch (ArithmeticException e) {
            return "it has a fraction";
        }
        if (whole.compareTo(min) < 0 || whole.compareTo(max) > 0) {
            return "it is outside " + min + " to " + max;
        }
        return null;
    }
}
