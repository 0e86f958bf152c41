package dev.autocdc.job.source;

import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.DeserializationFeature;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.JsonNodeFactory;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
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

    private final String[] names;
    private final LogicalType[] types;
    private final List<List<String>> objects;

    /** Spares most records the full check. */
    private final NumberPreScan preScan;

    private transient ObjectMapper mapper;

    private ExactNumbers(String[] names, LogicalType[] types, List<List<String>> objects) {
        this.names = names;
        this.types = types;
        this.objects = objects;
        this.preScan =
                new NumberPreScan(names, types, objects.size() == 1 && objects.get(0).isEmpty());
    }

    /** The pre-scan that decides which records the full check reads. */
    NumberPreScan preScan() {
        return preScan;
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
        if (!preScan.mayBeInexact(record)) {
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
}
