package dev.autocdc.job.source;

import java.io.IOException;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.DeserializationFeature;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.JsonNodeFactory;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * Finds the numbers of a JSON record that its column's type would not hold exactly (semantics §11).
 * Flink's JSON formats coerce: {@code 22.7} read as INT is 22, {@code 3e9} wraps, a DECIMAL(p, s)
 * rounds to its scale and turns into null past its precision. Such a record is bad input, never a
 * row with another key or sequence.
 *
 * <p>It checks the TINYINT, SMALLINT, INT, BIGINT and DECIMAL columns, each value by the rule of
 * its type ({@link ExactFit}); not numbers nested in ROW, ARRAY or MAP columns. Where the columns
 * are: the top-level object for {@code json}; the {@code before} and {@code after} objects for
 * {@code debezium-json} (under {@code payload} with {@code debezium-json.schema-include}) and
 * {@code ogg-json}; the {@code data} and {@code old} objects for {@code maxwell-json}, and each
 * object of the {@code data} and {@code old} arrays for {@code canal-json} (Canal writes every
 * value as a string, which Flink reads as the column's type).
 */
final class ExactNumbers implements Serializable {
    private static final long serialVersionUID = 1L;

    /** The byte that opens a JSON object. */
    private static final byte OBJECT_START = '{';

    private final String[] names;
    private final LogicalType[] types;
    private final List<List<String>> objects;

    /** The longest run of digits every checked column holds whatever the digits (see below). */
    private final int safeDigits;

    /** Per checked column, the longest run of digits it holds whatever the digits. */
    private final int[] columnSafeDigits;

    /** Per checked column, the largest value of an integer type; 0 for DECIMAL. */
    private final long[] columnMax;

    /** The checked columns' names in UTF-8, to find them among a record's keys. */
    private final byte[][] nameBytes;

    private transient ObjectMapper mapper;

    private ExactNumbers(String[] names, LogicalType[] types, List<List<String>> objects) {
        this.names = names;
        this.types = types;
        this.objects = objects;
        int safe = Integer.MAX_VALUE;
        columnSafeDigits = new int[types.length];
        columnMax = new long[types.length];
        nameBytes = new byte[names.length][];
        for (int i = 0; i < types.length; i++) {
            LogicalType t = types[i];
            columnMax[i] =
                    switch (t.getTypeRoot()) {
                        case TINYINT -> Byte.MAX_VALUE;
                        case SMALLINT -> Short.MAX_VALUE;
                        case INTEGER -> Integer.MAX_VALUE;
                        case BIGINT -> Long.MAX_VALUE;
                        default -> 0;
                    };
            columnSafeDigits[i] =
                    switch (t.getTypeRoot()) {
                        case TINYINT -> 2;
                        case SMALLINT -> 4;
                        case INTEGER -> 9;
                        case BIGINT -> 18;
                        default -> ((DecimalType) t).getPrecision() - ((DecimalType) t).getScale();
                    };
            safe = Math.min(safe, columnSafeDigits[i]);
            nameBytes[i] = names[i].getBytes(StandardCharsets.UTF_8);
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
        List<List<String>> objects =
                switch (format) {
                    case "json" -> List.of(List.of());
                    case "debezium-json" ->
                            schemaInclude
                                    ? List.of(
                                            List.of("payload", "before"),
                                            List.of("payload", "after"))
                                    : List.of(List.of("before"), List.of("after"));
                    case "ogg-json" -> List.of(List.of("before"), List.of("after"));
                    case "canal-json", "maxwell-json" -> List.of(List.of("data"), List.of("old"));
                    default -> null;
                };
        if (objects == null) {
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
        List<Inexact> found = find(record, true);
        return found.isEmpty() ? null : found.get(0).message();
    }

    /** An inexact number: its column, and a message naming the column, the value and the rule. */
    record Inexact(String column, String message) {}

    /**
     * Every inexact number of a record the format has parsed, in the record's order (the first only
     * when {@code firstOnly}); empty when all are exact.
     */
    List<Inexact> find(byte[] record, boolean firstOnly) throws IOException {
        List<Inexact> found = new ArrayList<>();
        if (!mayBeInexact(record)) {
            return found;
        }
        for (ObjectNode row : rows(parse(record))) {
            problemsIn(row, found);
            if (firstOnly && !found.isEmpty()) {
                return found.subList(0, 1);
            }
        }
        return found;
    }

    /**
     * The record with each inexact number of a checked column made null, written again as JSON: for
     * a format that refuses such a number, so that it still reads the row's other columns.
     */
    byte[] withoutInexact(byte[] record) throws IOException {
        JsonNode parsed = parse(record);
        for (ObjectNode row : rows(parsed)) {
            for (int i = 0; i < names.length; i++) {
                if (ExactFit.problem(row.get(names[i]), types[i]) != null) {
                    row.putNull(names[i]);
                }
            }
        }
        return mapper.writeValueAsBytes(parsed);
    }

    /**
     * The objects of a parsed record that hold the checked columns, in the record's order: of each
     * record (a JSON array holds several, and Flink's json format reads each), at each of the
     * format's paths; each object of an array there (canal-json: one per row).
     */
    private List<ObjectNode> rows(JsonNode parsed) {
        List<JsonNode> roots = new ArrayList<>();
        if (parsed != null && parsed.isArray()) {
            parsed.forEach(roots::add);
        } else {
            roots.add(parsed);
        }
        List<ObjectNode> rows = new ArrayList<>();
        for (JsonNode root : roots) {
            for (List<String> path : objects) {
                JsonNode node = root;
                for (String step : path) {
                    node = node == null ? null : node.get(step);
                }
                if (node instanceof ArrayNode array) {
                    array.forEach(row -> addObject(row, rows));
                } else {
                    addObject(node, rows);
                }
            }
        }
        return rows;
    }

    private static void addObject(JsonNode node, List<ObjectNode> rows) {
        if (node instanceof ObjectNode object) {
            rows.add(object);
        }
    }

    /** The record as a tree, its numbers as written. */
    private JsonNode parse(byte[] record) throws IOException {
        if (mapper == null) {
            // numbers as written: no double in between (1e1000000 would be Infinity, 0.1 rounded)
            mapper =
                    new ObjectMapper()
                            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                            .setNodeFactory(JsonNodeFactory.withExactBigDecimals(true));
        }
        return mapper.readTree(record);
    }

    /** Adds the inexact numbers among the checked columns of an object that holds them. */
    private void problemsIn(ObjectNode object, List<Inexact> found) {
        for (int i = 0; i < names.length; i++) {
            String problem = ExactFit.problem(object.get(names[i]), types[i]);
            if (problem != null) {
                found.add(
                        new Inexact(
                                names[i],
                                "column "
                                        + names[i]
                                        + " ("
                                        + types[i].asSummaryString()
                                        + ") cannot hold "
                                        + object.get(names[i])
                                        + " exactly: "
                                        + problem));
            }
        }
    }

    /**
     * Whether the record could hold an inexact number. A number can only be inexact with a point,
     * an exponent, or more digits in a row than its column holds whatever the digits. For the
     * {@code json} format, whose columns are the keys of one top-level object, it reads the
     * object's keys and looks only at the values of checked columns, each against its own column
     * ({@link #mayBeInexactInTopLevelObject}); otherwise, and for records that are not one object,
     * it scans every byte against the narrowest column ({@link #mayBeInexactAnywhere}). Most
     * records are then not parsed a second time; a false alarm only costs the full check.
     */
    boolean mayBeInexact(byte[] record) {
        if (objects.size() == 1 && objects.get(0).isEmpty()) {
            int first = skipSpace(record, 0);
            if (first < record.length && record[first] == OBJECT_START) {
                return mayBeInexactInTopLevelObject(record, first);
            }
        }
        return mayBeInexactAnywhere(record);
    }

    /**
     * The scan of one top-level object from {@code start} (its brace): true when the value of a
     * checked column is a number or a string with a point, an {@code e} or {@code E}, or more
     * digits in a row than the column holds; or when the record is not what this scan reads (an
     * escape in a key or in a checked column's string, an unterminated string), which the full
     * check then decides. Values nested deeper are not checked ({@link #check}), nor are they here.
     */
    private boolean mayBeInexactInTopLevelObject(byte[] r, int start) {
        int depth = 0;
        boolean awaitingKey = false;
        int column = -1; // the checked column whose value comes next, at depth 1
        for (int i = start; i < r.length; i++) {
            byte b = r[i];
            if (b == '"') {
                int end = i + 1;
                boolean escaped = false;
                while (end < r.length && r[end] != '"') {
                    if (r[end] == '\\') {
                        escaped = true;
                        end++;
                    }
                    end++;
                }
                if (end >= r.length) {
                    return true;
                }
                if (depth == 1 && awaitingKey) {
                    if (escaped) {
                        return true;
                    }
                    column = columnNamed(r, i + 1, end);
                    awaitingKey = false;
                } else if (depth == 1 && column >= 0) {
                    if (escaped || suspicious(r, i + 1, end, columnSafeDigits[column])) {
                        return true;
                    }
                    column = -1;
                }
                i = end;
            } else if (b == OBJECT_START || b == '[') {
                depth++;
                awaitingKey = depth == 1;
                if (depth == 2) {
                    column = -1; // a nested value: not checked
                }
            } else if (b == '}' || b == ']') {
                depth--;
            } else if (b == ',' && depth == 1) {
                awaitingKey = true;
                column = -1;
            } else if (depth == 1 && column >= 0 && (b == '-' || (b >= '0' && b <= '9'))) {
                int end = i;
                while (end < r.length && isNumberByte(r[end])) {
                    end++;
                }
                if (suspicious(r, i, end, columnSafeDigits[column])
                        && !integerInRange(r, i, end, columnMax[column])) {
                    return true;
                }
                column = -1;
                i = end - 1;
            }
        }
        return false;
    }

    /** Whether bytes {@code from} to {@code to} hold a point, an exponent or a long digit run. */
    private static boolean suspicious(byte[] r, int from, int to, int safe) {
        int run = 0;
        for (int i = from; i < to; i++) {
            byte b = r[i];
            if (b >= '0' && b <= '9') {
                if (++run > safe) {
                    return true;
                }
            } else {
                if (b == '.' || b == 'e' || b == 'E') {
                    return true;
                }
                run = 0;
            }
        }
        return false;
    }

    /**
     * Whether bytes {@code from} to {@code to} are an integer (an optional minus, then digits)
     * within the range of an integer type whose largest value is {@code max}: such a number is
     * exact, however many digits it has (an 18- or 19-digit id in a BIGINT). False for DECIMAL
     * ({@code max} 0) and for anything else, which the full check then decides.
     */
    private static boolean integerInRange(byte[] r, int from, int to, long max) {
        int i = from;
        boolean negative = i < to && r[i] == '-';
        if (negative) {
            i++;
        }
        if (max == 0 || i == to || to - i > 19) {
            return false;
        }
        long value = 0; // as a negative number, which holds Long.MIN_VALUE
        for (; i < to; i++) {
            int digit = r[i] - '0';
            if (digit < 0 || digit > 9 || value < (Long.MIN_VALUE + digit) / 10) {
                return false;
            }
            value = value * 10 - digit;
        }
        return negative ? value >= -max - 1 : value >= -max;
    }

    private static boolean isNumberByte(byte b) {
        return (b >= '0' && b <= '9') || b == '-' || b == '+' || b == '.' || b == 'e' || b == 'E';
    }

    /** The index of the checked column named by the key bytes {@code from} to {@code to}, or -1. */
    private int columnNamed(byte[] r, int from, int to) {
        for (int c = 0; c < nameBytes.length; c++) {
            if (Arrays.equals(nameBytes[c], 0, nameBytes[c].length, r, from, to)) {
                return c;
            }
        }
        return -1;
    }

    private static int skipSpace(byte[] r, int i) {
        while (i < r.length && (r[i] == ' ' || r[i] == '\n' || r[i] == '\r' || r[i] == '\t')) {
            i++;
        }
        return i;
    }

    /**
     * The scan of any record against the narrowest checked column ({@code safeDigits}): a point, an
     * exponent (an {@code e} right after a digit) or a long digit run anywhere, strings included.
     */
    boolean mayBeInexactAnywhere(byte[] record) {
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
}
