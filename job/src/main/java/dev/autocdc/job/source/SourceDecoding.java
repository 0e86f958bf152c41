package dev.autocdc.job.source;

import dev.autocdc.operators.flink.runtime.DeadLetter;
import dev.autocdc.operators.flink.spec.ControlColumn;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableDescriptor;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.api.internal.TableEnvironmentInternal;
import org.apache.flink.table.catalog.CatalogManager;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ContextResolvedTable;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.format.DecodingFormat;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DeserializationFormatFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.runtime.connector.source.ScanRuntimeProviderContext;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.utils.DataTypeUtils;
import org.apache.flink.types.Row;
import org.apache.flink.util.OutputTag;

/**
 * Reads a flow's Kafka or filesystem source as bytes and decodes them with the source's own format
 * in a step of ours ({@link RecordDecoder}), so that a record the format cannot read is a dead
 * letter with its bytes, not a failed job (semantics §11), on every connector alike: Flink's
 * filesystem source offers a format no way to hand on a record's bytes.
 *
 * <p>The source table stays as declared; the flow reads a view of the same columns in the same
 * order (physical, metadata, computed) over a twin table of the same connector and options with
 * {@code 'format' = 'raw'} (Kafka: {@code 'value.format' = 'raw'}; key fields keep their key
 * format). The format's metadata ({@code value.source.timestamp} of {@code debezium-json}) comes
 * from the decoding step, the connector's from the twin. Kafka dead letters carry topic, partition
 * and offset.
 *
 * <p>Read as declared (the format's errors fail the job): views and other connectors, a partitioned
 * filesystem table, a filesystem format other than the JSON family, and a source already in {@code
 * raw}. Watermarks of the source are not carried over (the engine orders by SEQUENCE BY, not event
 * time).
 */
public final class SourceDecoding {
    /** The filesystem formats read a line per record, as the decoding step reads them. */
    private static final Set<String> LINE_FORMATS =
            Set.of("json", "debezium-json", "canal-json", "maxwell-json", "ogg-json");

    private static final String BYTES = "__autocdc_bytes";

    /** The decoded stream's record time, declared only to carry the snapshots' watermark. */
    private static final String ROWTIME = "__autocdc_rowtime";

    /**
     * The view the flow reads instead of its source, and the source's dead letters.
     *
     * @param view the temporary view's name: the source's columns, then {@code coordinates}
     * @param coordinates for Kafka, the view's extra columns holding each record's topic, partition
     *     and offset, named as the engine's control columns under {@link
     *     ControlColumn#prefixAvoiding} of the source's columns; else empty
     * @param raw the view's last column, each record's bytes, named as {@link #RAW} under that
     *     prefix
     * @param snapshotWatermark whether the table read as bytes declares the snapshots' watermark
     */
    public record Decoded(
            String view,
            DataStream<DeadLetter> letters,
            List<String> coordinates,
            String raw,
            boolean snapshotWatermark) {}

    /**
     * The control column of the view that holds each record's bytes, for the dead letters of rows
     * the job refuses before the keyed exchange (it never reaches the engine).
     */
    public static final String RAW = "__raw";

    private SourceDecoding() {}

    /** The uid of flow {@code flow}'s decoding step. */
    public static String uid(String flow) {
        return "auto-cdc-decode-" + flow;
    }

    /**
     * Declares the snapshots' watermark on the table read as bytes: each value column as a computed
     * column of the decoded record, so that the end condition reads as written, and the time column
     * the watermark is on.
     */
    private static void watermark(
            StreamTableEnvironment tEnv,
            Schema.Builder twin,
            String base,
            SnapshotWatermark snapshots,
            DeserializationSchema<RowData> decoder,
            DataType valueType,
            List<String> valueNames,
            List<String> keyFields,
            ExactNumbers numbers,
            String timeColumn) {
        try {
            tEnv.createTemporarySystemFunction(
                    SnapshotTimeFunction.NAME, SnapshotTimeFunction.class);
        } catch (ValidationException e) {
            // registered by another flow of the script
        }
        String record = base + "_snapshot_record";
        tEnv.createTemporarySystemFunction(
                record, new SnapshotRecordFunction(decoder, valueType, numbers));
        String decoded = quote(record) + "(" + quote(BYTES) + ")";
        for (String column : valueNames) {
            if (!keyFields.contains(column)) { // a Kafka key field is a column of the twin already
                twin.columnByExpression(column, decoded + "." + quote(column));
            }
        }
        String time = snapshots.timeExpression();
        if (valueNames.contains(snapshots.column())
                && !keyFields.contains(
                        snapshots.column())) { // a computed column cannot read another
            time =
                    time.replace(
                            quote(snapshots.column()), decoded + "." + quote(snapshots.column()));
        }
        twin.columnByExpression(timeColumn, time);
        twin.watermark(timeColumn, snapshots.watermarkExpression(timeColumn));
    }

    /** A catalog table's options; null for a view or an unknown table. */
    public static Map<String, String> options(StreamTableEnvironment tEnv, String source) {
        TableEnvironmentInternal internal = (TableEnvironmentInternal) tEnv;
        CatalogManager catalogs = internal.getCatalogManager();
        ObjectIdentifier id =
                catalogs.qualifyIdentifier(internal.getParser().parseIdentifier(source));
        return catalogs.getTable(id)
                .filter(t -> t.getResolvedTable() instanceof ResolvedCatalogTable)
                .map(t -> ((ResolvedCatalogTable) t.getResolvedTable()).getOptions())
                .orElse(null);
    }

    /** A type without its time attribute: the view's columns are plain data. */
    private static DataType plain(DataType t) {
        return DataTypeUtils.removeTimeAttribute(t);
    }

    private static String quote(String identifier) {
        return "`" + identifier.replace("`", "``") + "`";
    }

    /**
     * Decodes the source in a step of ours, or returns null when it is read as declared (see the
     * class comment).
     *
     * @param flow the flow's name (the dead letters', the operators' uids)
     * @param source the source table's name as the flow names it
     */
    public static Decoded decode(StreamTableEnvironment tEnv, String flow, String source) {
        return decode(tEnv, flow, source, null);
    }

    /**
     * As {@link #decode(StreamTableEnvironment, String, String)}, for a flow from snapshots: when
     * the source never ends and its snapshots are timed, the table read as bytes gets the
     * snapshots' watermark ({@link SnapshotWatermark}).
     *
     * @param snapshots the flow's snapshot watermark; null for a change flow
     */
    public static Decoded decode(
            StreamTableEnvironment tEnv, String flow, String source, SnapshotWatermark snapshots) {
        TableEnvironmentInternal internal = (TableEnvironmentInternal) tEnv;
        CatalogManager catalogs = internal.getCatalogManager();
        ObjectIdentifier id =
                catalogs.qualifyIdentifier(internal.getParser().parseIdentifier(source));
        ContextResolvedTable resolved = catalogs.getTable(id).orElse(null);
        if (resolved == null
                || !(resolved.getResolvedTable() instanceof ResolvedCatalogTable table)
                || table.isPartitioned()) {
            return null;
        }
        Map<String, String> options = table.getOptions();
        String connector = options.get("connector");
        boolean kafka = "kafka".equals(connector);
        if (!kafka && !"filesystem".equals(connector)) {
            return null;
        }
        String formatKey = kafka && options.containsKey("value.format") ? "value.format" : "format";
        String format = options.get(formatKey);
        if (format == null || format.equals("raw") || (!kafka && !LINE_FORMATS.contains(format))) {
            return null;
        }
        String formatPrefix = (formatKey.equals("value.format") ? "value." : "") + format + ".";

        // which physical columns the value holds: all but the Kafka key fields with EXCEPT_KEY
        List<String> keyFields = new ArrayList<>();
        if (kafka && options.containsKey("key.fields")) {
            for (String k : options.get("key.fields").split(";")) {
                keyFields.add(k.trim());
            }
        }
        boolean exceptKey =
                "EXCEPT_KEY".equalsIgnoreCase(options.getOrDefault("value.fields-include", "ALL"));
        List<Column> columns = table.getResolvedSchema().getColumns();
        List<DataTypes.Field> valueFields = new ArrayList<>();
        List<String> formatMetadata = new ArrayList<>();
        Schema.Builder twin = Schema.newBuilder();
        List<DataType> twinTypes = new ArrayList<>();
        Map<String, Integer> twinFields = new HashMap<>();
        Map<String, Integer> connectorMetadata = new HashMap<>(); // by metadata key
        for (String k : keyFields) {
            DataType t = plain(table.getResolvedSchema().getColumn(k).orElseThrow().getDataType());
            twin.column(k, t);
            twinFields.put(k, twinTypes.size());
            twinTypes.add(t);
        }
        int bytesField = twinTypes.size();
        twin.column(BYTES, DataTypes.BYTES());
        twinTypes.add(null);
        for (Column c : columns) {
            if (c instanceof Column.PhysicalColumn
                    && (!exceptKey || !keyFields.contains(c.getName()))) {
                valueFields.add(DataTypes.FIELD(c.getName(), plain(c.getDataType())));
            } else if (c instanceof Column.MetadataColumn m) {
                String key = m.getMetadataKey().orElse(c.getName());
                if (kafka && key.startsWith("value.")) {
                    formatMetadata.add(key.substring("value.".length()));
                } else {
                    twin.columnByMetadata(c.getName(), plain(c.getDataType()), key, true);
                    twinFields.put(c.getName(), twinTypes.size());
                    connectorMetadata.put(key, twinTypes.size());
                    twinTypes.add(plain(c.getDataType()));
                }
            }
        }
        // Kafka's coordinates for the dead letters: the source's own columns, else hidden ones (a
        // metadata key may be read by one column only)
        int[] coordinates = {-1, -1, -1};
        if (kafka) {
            String[] keys = {"topic", "partition", "offset"};
            DataType[] types = {DataTypes.STRING(), DataTypes.INT(), DataTypes.BIGINT()};
            for (int i = 0; i < keys.length; i++) {
                Integer declared = connectorMetadata.get(keys[i]);
                if (declared != null) {
                    coordinates[i] = declared;
                } else {
                    twin.columnByMetadata("__autocdc_" + keys[i], types[i], keys[i], true);
                    coordinates[i] = twinTypes.size();
                    twinTypes.add(types[i]);
                }
            }
        }

        // the source's format, with its own options, as its connector would create it
        Configuration formatOptions = new Configuration();
        TableDescriptor.Builder descriptor = TableDescriptor.forConnector(connector);
        for (Map.Entry<String, String> o : options.entrySet()) {
            String k = o.getKey();
            if (k.startsWith(formatPrefix)) {
                formatOptions.setString(k.substring(formatPrefix.length()), o.getValue());
            } else if (!k.equals("connector") && !k.equals("format") && !k.equals("value.format")) {
                descriptor.option(k, o.getValue());
            }
        }
        descriptor.option(kafka ? "value.format" : "format", "raw");
        if (!keyFields.isEmpty()) {
            descriptor.option("value.fields-include", "EXCEPT_KEY");
        }
        DataType valueType = DataTypes.ROW(valueFields.toArray(new DataTypes.Field[0]));
        DeserializationSchema<RowData> decoder;
        ChangelogMode mode;
        Map<String, DataType> formatMetadataTypes = new HashMap<>(); // the format's own types
        try {
            DeserializationFormatFactory factory =
                    FactoryUtil.discoverFactory(
                            Thread.currentThread().getContextClassLoader(),
                            DeserializationFormatFactory.class,
                            format);
            FactoryUtil.validateFactoryOptions(factory, formatOptions);
            // a record the format skips or nulls would be lost without a word: the flow's dead
            // letters replace the option (bad-records = 'fail' gives it back)
            for (ConfigOption<?> o : factory.optionalOptions()) {
                if (o.key().equals("ignore-parse-errors")) {
                    formatOptions.setString(o.key(), "false");
                }
            }
            DecodingFormat<DeserializationSchema<RowData>> decoding =
                    factory.createDecodingFormat(
                            new FactoryUtil.DefaultDynamicTableContext(
                                    id,
                                    table,
                                    Map.of(),
                                    tEnv.getConfig(),
                                    Thread.currentThread().getContextClassLoader(),
                                    true),
                            formatOptions);
            if (!formatMetadata.isEmpty()) {
                for (String key : formatMetadata) {
                    if (!decoding.listReadableMetadata().containsKey(key)) {
                        throw new ValidationException(
                                "format "
                                        + format
                                        + " has no metadata value."
                                        + key
                                        + "; it has "
                                        + decoding.listReadableMetadata().keySet());
                    }
                }
                decoding.applyReadableMetadata(formatMetadata);
                formatMetadata.forEach(
                        k -> formatMetadataTypes.put(k, decoding.listReadableMetadata().get(k)));
            }
            decoder = decoding.createRuntimeDecoder(ScanRuntimeProviderContext.INSTANCE, valueType);
            mode = decoding.getChangelogMode();
        } catch (ValidationException e) {
            throw new ValidationException(
                    "source " + source + ": format " + format + ": " + e.getMessage(), e);
        }

        // where each non-computed source column comes from
        List<DataTypes.Field> outFields = new ArrayList<>();
        Map<String, DataType> casts = new HashMap<>(); // format metadata of another type
        List<Integer> fromValue = new ArrayList<>();
        List<Integer> fromRow = new ArrayList<>();
        List<String> valueNames = new ArrayList<>();
        valueFields.forEach(f -> valueNames.add(f.getName()));
        int formatMetadataSeen = 0;
        for (Column c : columns) {
            if (c instanceof Column.ComputedColumn) {
                continue;
            }
            DataType type = plain(c.getDataType());
            int v = valueNames.indexOf(c.getName());
            if (c instanceof Column.MetadataColumn m
                    && kafka
                    && m.getMetadataKey().orElse(c.getName()).startsWith("value.")) {
                v = valueNames.size() + formatMetadataSeen++;
                // the format gives its own type; the view casts it to the declared one
                String key = m.getMetadataKey().get().substring("value.".length());
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
        // Kafka's coordinates, for the dead letters the engine writes, under the names of the
        // engine's control columns (a prefix no source column uses)
        List<String> coordinateColumns = new ArrayList<>();
        List<String> names = new ArrayList<>();
        columns.forEach(c -> names.add(c.getName()));
        String prefix = ControlColumn.prefixAvoiding(names);
        if (kafka) {
            String[] roles = {
                ControlColumn.TOPIC.columnName(),
                ControlColumn.PARTITION.columnName(),
                ControlColumn.OFFSET.columnName()
            };
            for (int i = 0; i < roles.length; i++) {
                String name = ControlColumn.withPrefix(prefix, roles[i]);
                coordinateColumns.add(name);
                // the type the source declared (a BIGINT partition); the planner casts it
                outFields.add(DataTypes.FIELD(name, twinTypes.get(coordinates[i])));
                fromValue.add(-1);
                fromRow.add(coordinates[i]);
            }
        }
        String raw = ControlColumn.withPrefix(prefix, RAW);
        outFields.add(DataTypes.FIELD(raw, DataTypes.BYTES()));
        fromValue.add(-1);
        fromRow.add(bytesField); // the record's bytes as read, not a copy

        String base = "__autocdc_" + flow;
        ExactNumbers numbers =
                ExactNumbers.of(
                        format,
                        Boolean.parseBoolean(
                                formatOptions.toMap().getOrDefault("schema-include", "false")),
                        (RowType) valueType.getLogicalType());
        boolean watermarked =
                snapshots != null
                        && SnapshotWatermark.unbounded(options)
                        && table.getResolvedSchema()
                                .getColumn(snapshots.column())
                                .map(c -> SnapshotWatermark.timed(c.getDataType().getLogicalType()))
                                .orElse(false);
        if (watermarked) {
            List<String> taken = new ArrayList<>(names);
            taken.addAll(coordinateColumns);
            taken.add(raw);
            String timeColumn = SnapshotWatermark.timeColumn(prefix, taken);
            watermark(
                    tEnv,
                    twin,
                    base,
                    snapshots,
                    decoder,
                    valueType,
                    valueNames,
                    keyFields,
                    numbers,
                    timeColumn);
        }
        tEnv.createTemporaryTable(quote(base + "_bytes"), descriptor.schema(twin.build()).build());
        Table bytesTable = tEnv.from(quote(base + "_bytes"));
        // internal rows: no conversion to Row and back on every record
        DataStream<RowData> rows =
                tEnv.toDataStream(
                        bytesTable,
                        bytesTable
                                .getResolvedSchema()
                                .toSourceRowDataType()
                                .bridgedTo(RowData.class));
        OutputTag<DeadLetter> tag = new OutputTag<>("source dead letters of " + flow) {};
        DataType outType = DataTypes.ROW(outFields.toArray(new DataTypes.Field[0]));
        SingleOutputStreamOperator<RowData> decoded =
                rows.process(
                                new RecordDecoder(
                                        flow,
                                        source,
                                        decoder,
                                        LINE_FORMATS.contains(format) || format.equals("csv"),
                                        format.equals("json") || format.equals("csv"),
                                        numbers,
                                        new RecordDecoder.Layout(
                                                bytesField,
                                                fromValue.stream().mapToInt(i -> i).toArray(),
                                                fromRow.stream()
                                                        .mapToInt(i -> i == null ? -1 : i)
                                                        .toArray(),
                                                twinTypes.toArray(new DataType[0]),
                                                coordinates[0],
                                                coordinates[1],
                                                coordinates[2]),
                                        tag))
                        .returns(InternalTypeInfo.of((RowType) outType.getLogicalType()))
                        .name("decode " + source + " for " + flow)
                        .uid(uid(flow));
        @SuppressWarnings({"unchecked", "rawtypes"})
        DataStream<Row> asRows = (DataStream) decoded; // RowData as it is, as FlowJob does
        Schema.Builder decodedSchema = Schema.newBuilder().fromRowDataType(outType);
        if (watermarked) { // a table from a stream passes its watermarks on only when told to
            decodedSchema
                    .columnByMetadata(ROWTIME, DataTypes.TIMESTAMP_LTZ(3), "rowtime", true)
                    .watermark(ROWTIME, "SOURCE_WATERMARK()");
        }
        Table decodedTable = tEnv.fromChangelogStream(asRows, decodedSchema.build(), mode);
        tEnv.createTemporaryView(quote(base + "_decoded"), decodedTable);
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
                        .append(quote(c.getName()))
                        .append(" AS ")
                        .append(casts.get(c.getName()).getLogicalType().asSerializableString())
                        .append(") AS ");
            }
            select.append(quote(c.getName()));
        }
        for (String c : coordinateColumns) {
            select.append(", ").append(quote(c));
        }
        select.append(", ").append(quote(raw));
        select.append(" FROM ").append(quote(base + "_decoded"));
        tEnv.executeSql("CREATE TEMPORARY VIEW " + quote(base) + " AS " + select);
        return new Decoded(base, decoded.getSideOutput(tag), coordinateColumns, raw, watermarked);
    }
}
