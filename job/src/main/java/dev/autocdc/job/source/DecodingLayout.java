package dev.autocdc.job.source;

import dev.autocdc.operators.flink.spec.ControlColumn;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.utils.DataTypeUtils;

/**
 * The column layout of a source read as bytes ({@link SourceDecoding}), built in two phases:
 *
 * <ol>
 *   <li>{@link #twin}: the twin table of the same connector with the raw format: the Kafka key
 *       fields (read by the key format, guarded: {@link GuardedKeyFormat}), the record's bytes, the
 *       connector's metadata columns and Kafka's coordinates; and what the format must decode: the
 *       value's physical columns and the format's metadata;
 *   <li>{@link #output}: the decoded rows, where each non-computed source column comes from (the
 *       decoded value or the twin's row), then Kafka's coordinates, for a flow from snapshots the
 *       refusal mark, and the record's bytes under the engine's control-column names, and the casts
 *       the view applies.
 * </ol>
 */
final class DecodingLayout {
    /** The prefix of a Kafka table's format metadata keys. */
    static final String VALUE = "value.";

    /** The name of the twin's column of key errors, after the connector's key-fields prefix. */
    static final String KEY_ERROR = "__autocdc_key_error";

    /** The twin's column of each record's bytes. */
    static final String BYTES = "__autocdc_bytes";

    // phase 1: the twin and the value
    final List<String> keyFields = new ArrayList<>();
    final Schema.Builder twin = Schema.newBuilder();
    final List<DataType> twinTypes = new ArrayList<>();
    final List<DataTypes.Field> valueFields = new ArrayList<>();
    final List<String> formatMetadata = new ArrayList<>();
    final List<String> valueNames = new ArrayList<>();
    int bytesField;

    /** The twin's column saying why a record's key could not be read; null without key fields. */
    String keyError;

    int keyErrorField = -1;

    /** Topic, partition, offset: the twin's field of each for Kafka, else -1. */
    final int[] coordinates = {-1, -1, -1};

    private final Map<String, Integer> twinFields = new HashMap<>();

    // phase 2: the decoded rows
    final List<DataTypes.Field> outFields = new ArrayList<>();
    final List<Integer> fromValue = new ArrayList<>();
    final List<Integer> fromRow = new ArrayList<>();
    final List<String> coordinateColumns = new ArrayList<>();

    /** The column of a refused row that goes on (a flow from snapshots); null when none. */
    String refused;

    int refusedField = -1;

    /** Format metadata declared of another type than the format's, cast by the view. */
    final Map<String, DataType> casts = new HashMap<>();

    String prefix;
    String raw;

    private DecodingLayout() {}

    /**
     * Phase 1: the twin's columns and the value's, for a source with {@code options} (Kafka's key
     * fields, and whether the value leaves them out).
     */
    static DecodingLayout twin(ResolvedSchema schema, Map<String, String> options, boolean kafka) {
        DecodingLayout l = new DecodingLayout();
        if (kafka && options.containsKey("key.fields")) {
            for (String k : options.get("key.fields").split(";")) {
                l.keyFields.add(k.trim());
            }
        }
        boolean exceptKey =
                "EXCEPT_KEY".equalsIgnoreCase(options.getOrDefault("value.fields-include", "ALL"));
        Map<String, Integer> connectorMetadata = new HashMap<>(); // by metadata key
        for (String k : l.keyFields) {
            DataType t = plain(schema.getColumn(k).orElseThrow().getDataType());
            l.twin.column(k, t);
            l.twinFields.put(k, l.twinTypes.size());
            l.twinTypes.add(t);
        }
        if (!l.keyFields.isEmpty() && options.containsKey("key.format")) {
            // the key format guarded: a key it cannot read says why here (GuardedKeyFormat)
            l.keyError = options.getOrDefault("key.fields-prefix", "") + KEY_ERROR;
            l.keyErrorField = l.twinTypes.size();
            l.twin.column(l.keyError, DataTypes.STRING());
            l.twinTypes.add(DataTypes.STRING());
        }
        l.bytesField = l.twinTypes.size();
        l.twin.column(BYTES, DataTypes.BYTES());
        l.twinTypes.add(null);
        for (Column c : schema.getColumns()) {
            if (c instanceof Column.PhysicalColumn
                    && (!exceptKey || !l.keyFields.contains(c.getName()))) {
                l.valueFields.add(DataTypes.FIELD(c.getName(), plain(c.getDataType())));
                l.valueNames.add(c.getName());
            } else if (c instanceof Column.MetadataColumn m) {
                String key = m.getMetadataKey().orElse(c.getName());
                String formatKey = formatMetadataKey(key, kafka);
                if (formatKey != null) {
                    l.formatMetadata.add(formatKey);
                } else {
                    l.twin.columnByMetadata(c.getName(), plain(c.getDataType()), key, true);
                    l.twinFields.put(c.getName(), l.twinTypes.size());
                    connectorMetadata.put(key, l.twinTypes.size());
                    l.twinTypes.add(plain(c.getDataType()));
                }
            }
        }
        // Kafka's coordinates for the dead letters: the source's own columns, else hidden ones (a
        // metadata key may be read by one column only)
        if (kafka) {
            String[] keys = {"topic", "partition", "offset"};
            DataType[] types = {DataTypes.STRING(), DataTypes.INT(), DataTypes.BIGINT()};
            for (int i = 0; i < keys.length; i++) {
                Integer declared = connectorMetadata.get(keys[i]);
                if (declared != null) {
                    l.coordinates[i] = declared;
                } else {
                    l.twin.columnByMetadata("__autocdc_" + keys[i], types[i], keys[i], true);
                    l.coordinates[i] = l.twinTypes.size();
                    l.twinTypes.add(types[i]);
                }
            }
        }
        return l;
    }

    /**
     * The format's own key of a metadata column's key, or null when the connector reads it. Kafka:
     * {@code value.<key>}. The filesystem connector reads only its {@code file.*} keys, and no
     * format metadata: here {@code value.<key>} (as on Kafka) or {@code <key>} reads the format's.
     */
    static String formatMetadataKey(String key, boolean kafka) {
        if (key.startsWith(VALUE)) {
            return key.substring(VALUE.length());
        }
        return kafka || key.startsWith("file.") ? null : key;
    }

    /** The value the format decodes: its physical columns. */
    DataType valueType() {
        return DataTypes.ROW(valueFields.toArray(new DataTypes.Field[0]));
    }

    /**
     * Phase 2: where each non-computed source column comes from, then Kafka's coordinates, the
     * refusal mark ({@code snapshot} only) and the record's bytes under the engine's control-column
     * names (a prefix no source column uses).
     *
     * @param formatMetadataTypes the format's own type of each metadata key it reads
     * @param snapshot whether the flow reads snapshots, whose rows with an inexact number in a
     *     column that places no row are passed on marked ({@link ControlColumn#REFUSED})
     */
    void output(
            List<Column> columns,
            boolean kafka,
            Map<String, DataType> formatMetadataTypes,
            boolean snapshot) {
        int formatMetadataSeen = 0;
        for (Column c : columns) {
            if (c instanceof Column.ComputedColumn) {
                continue;
            }
            DataType type = plain(c.getDataType());
            int v = valueNames.indexOf(c.getName());
            String key =
                    c instanceof Column.MetadataColumn m
                            ? formatMetadataKey(m.getMetadataKey().orElse(c.getName()), kafka)
                            : null;
            if (key != null) {
                v = valueNames.size() + formatMetadataSeen++;
                // the format gives its own type; the view casts it to the declared one
                type = formatMetadataTypes.get(key);
                if (!type.getLogicalType().equals(plain(c.getDataType()).getLogicalType())) {
                    casts.put(c.getName(), plain(c.getDataType()));
                }
            } else if (c instanceof Column.MetadataColumn) {
                v = -1;
            }
            outFields.add(DataTypes.FIELD(c.getName(), type));
            fromValue.add(v);
            fromRow.add(v >= 0 ? -1 : twinFields.get(c.getName()));
        }
        List<String> names = new ArrayList<>();
        columns.forEach(c -> names.add(c.getName()));
        prefix = ControlColumn.prefixAvoiding(names);
        if (kafka) {
            ControlColumn[] roles = {
                ControlColumn.TOPIC, ControlColumn.PARTITION, ControlColumn.OFFSET
            };
            for (int i = 0; i < roles.length; i++) {
                String name = roles[i].columnName(prefix);
                coordinateColumns.add(name);
                // the type the source declared (a BIGINT partition); the planner casts it
                outFields.add(DataTypes.FIELD(name, twinTypes.get(coordinates[i])));
                fromValue.add(-1);
                fromRow.add(coordinates[i]);
            }
        }
        if (snapshot) {
            refused = ControlColumn.REFUSED.columnName(prefix);
            refusedField = outFields.size();
            outFields.add(DataTypes.FIELD(refused, DataTypes.STRING()));
            fromValue.add(-1);
            fromRow.add(-1);
        }
        raw = ControlColumn.withPrefix(prefix, SourceDecoding.RAW);
        outFields.add(DataTypes.FIELD(raw, DataTypes.BYTES()));
        fromValue.add(-1);
        fromRow.add(bytesField); // the record's bytes as read, not a copy
    }

    /** The decoded rows' type. */
    DataType outType() {
        return DataTypes.ROW(outFields.toArray(new DataTypes.Field[0]));
    }

    /** Where the decoding step takes each output field from. */
    RecordDecoder.Layout recordLayout() {
        return new RecordDecoder.Layout(
                bytesField,
                keyErrorField,
                refusedField,
                fromValue.stream().mapToInt(i -> i).toArray(),
                fromRow.stream().mapToInt(i -> i == null ? -1 : i).toArray(),
                twinTypes.toArray(new DataType[0]),
                coordinates[0],
                coordinates[1],
                coordinates[2]);
    }

    /**
     * The view's query over the decoded rows: the source's columns in their order (computed ones
     * computed, format metadata cast), then the coordinates, the refusal mark and the bytes.
     */
    String viewQuery(List<Column> columns, String from) {
        StringBuilder select = new StringBuilder("SELECT ");
        for (Column c : columns) {
            if (select.length() > "SELECT ".length()) {
                select.append(", ");
            }
            if (c instanceof Column.ComputedColumn computed) {
                select.append('(')
                        .append(computed.getExpression().asSerializableString())
                        .append(") AS ");
            } else if (casts.containsKey(c.getName())) {
                select.append("CAST(")
                        .append(SourceDecoding.quote(c.getName()))
                        .append(" AS ")
                        .append(casts.get(c.getName()).getLogicalType().asSerializableString())
                        .append(") AS ");
            }
            select.append(SourceDecoding.quote(c.getName()));
        }
        for (String c : coordinateColumns) {
            select.append(", ").append(SourceDecoding.quote(c));
        }
        if (refused != null) {
            select.append(", ").append(SourceDecoding.quote(refused));
        }
        select.append(", ").append(SourceDecoding.quote(raw));
        return select.append(" FROM ").append(SourceDecoding.quote(from)).toString();
    }

    /** A type without its time attribute: the view's columns are plain data. */
    static DataType plain(DataType t) {
        return DataTypeUtils.removeTimeAttribute(t);
    }
}
