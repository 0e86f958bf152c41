package dev.autocdc.job.source;

import dev.autocdc.operators.flink.runtime.DeadLetter;
import dev.autocdc.operators.flink.spec.ControlColumn;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.flink.api.common.serialization.DeserializationSchema;
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
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;
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
 * and offset. Flows that read one table through equal twins share the twin's read ({@link
 * ByteReads}), and each decodes it in its own step.
 *
 * <p>Read as declared (the format's errors fail the job): views and other connectors, a partitioned
 * filesystem table, a filesystem format other than the JSON family, and a source already in {@code
 * raw}. Watermarks of the source are not carried over (the engine orders by SEQUENCE BY, not event
 * time).
 */
public final class SourceDecoding {
    /** The decoded stream's record time, declared only to carry the snapshots' watermark. */
    private static final String ROWTIME = "__autocdc_rowtime";

    /**
     * The view the flow reads instead of its source, and the source's dead letters.
     *
     * @param view the temporary view's name: the source's columns, then {@code coordinates}
     * @param read the read of the source as bytes, perhaps shared with other flows
     * @param coordinates for Kafka, the view's extra columns holding each record's topic, partition
     *     and offset, named as the engine's control columns under {@link
     *     ControlColumn#prefixAvoiding} of the source's columns; else empty
     * @param refused for a flow from snapshots, the view's column marking a row refused here that
     *     goes on to hold its key ({@link ControlColumn#REFUSED} under that prefix); else null
     * @param raw the view's last column, each record's bytes, named as {@link #RAW} under that
     *     prefix
     * @param snapshotWatermark whether the table read as bytes declares the snapshots' watermark
     */
    public record Decoded(
            String view,
            ByteReads.Read read,
            DataStream<DeadLetter> letters,
            List<String> coordinates,
            String refused,
            String raw,
            boolean snapshotWatermark) {}

    /**
     * The control column of the view that holds each record's bytes, for the dead letters of rows
     * the job refuses before the keyed exchange (it never reaches the engine).
     */
    public static final String RAW = "__raw";

    /**
     * The name of the twin of a table's shared read, before the table's name (a flow reading on its
     * own names it {@code __autocdc_<flow>_bytes}).
     */
    private static final String SHARED_READ = "__autocdc_read:";

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
            DecodingLayout layout,
            List<Column> columns,
            String base,
            SnapshotWatermark snapshots,
            DeserializationSchema<RowData> decoder,
            ExactNumbers numbers) {
        List<String> taken = new ArrayList<>();
        columns.forEach(c -> taken.add(c.getName()));
        taken.addAll(layout.coordinateColumns);
        if (layout.refused != null) {
            taken.add(layout.refused);
        }
        taken.add(layout.raw);
        String timeColumn = SnapshotWatermark.timeColumn(layout.prefix, taken);
        Schema.Builder twin = layout.twin;
        List<String> valueNames = layout.valueNames;
        List<String> keyFields = layout.keyFields;
        try {
            tEnv.createTemporarySystemFunction(
                    SnapshotTimeFunction.NAME, SnapshotTimeFunction.class);
        } catch (ValidationException e) {
            // registered by another flow of the script
        }
        String record = base + "_snapshot_record";
        tEnv.createTemporarySystemFunction(
                record, new SnapshotRecordFunction(decoder, layout.valueType(), numbers));
        String decoded = quote(record) + "(" + quote(DecodingLayout.BYTES) + ")";
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

    static String quote(String identifier) {
        return "`" + identifier.replace("`", "``") + "`";
    }

    /**
     * Decodes the source in a step of ours, or returns null when it is read as declared (see the
     * class comment). For a flow from snapshots, when the source never ends and its snapshots are
     * timed, the table read as bytes gets the snapshots' watermark ({@link SnapshotWatermark}).
     *
     * @param flow the flow's name (the dead letters', the operators' uids)
     * @param source the source table's name as the flow names it
     * @param snapshots the flow's snapshot watermark; null for a change flow or an untimed one
     * @param placing for a flow from snapshots, the source columns that place a row (its keys, its
     *     sequences, those its end condition reads): a row with an inexact number in none of them
     *     goes on to hold its key ({@link RecordDecoder}); null for a change flow
     * @param reads the tables read as bytes for the flows planned before, to share with
     * @param sharing how the flow may share its source's read ({@link ByteReads}), asked only when
     *     the source is read as bytes; null, or a null answer: it reads the source on its own (so
     *     does a flow whose source gets its snapshot watermark)
     */
    public static Decoded decode(
            StreamTableEnvironment tEnv,
            String flow,
            String source,
            SnapshotWatermark snapshots,
            Set<String> placing,
            ByteReads reads,
            Supplier<ByteReads.Sharing> sharing) {
        SourceFormat.Readable readable = SourceFormat.readable(tEnv, source);
        if (readable == null) {
            return null;
        }
        ResolvedCatalogTable table = readable.table();
        Map<String, String> options = table.getOptions();
        boolean kafka = readable.kafka();
        String format = readable.format();
        List<Column> columns = table.getResolvedSchema().getColumns();
        DecodingLayout layout = DecodingLayout.twin(table.getResolvedSchema(), options, kafka);

        // the source's format, with its own options, as its connector would create it
        Configuration formatOptions = new Configuration();
        TableDescriptor.Builder descriptor =
                SourceFormat.twinDescriptor(
                        options, readable.formatPrefix(), kafka, layout, formatOptions);
        SourceFormat.Format decoding =
                SourceFormat.format(tEnv, source, readable, formatOptions, layout);
        layout.output(columns, kafka, decoding.metadataTypes(), placing != null);

        String base = "__autocdc_" + flow;
        ExactNumbers numbers =
                ExactNumbers.of(
                        format,
                        Boolean.parseBoolean(
                                formatOptions.toMap().getOrDefault("schema-include", "false")),
                        (RowType) layout.valueType().getLogicalType());
        boolean watermarked = watermarked(snapshots, table);
        if (watermarked) {
            watermark(tEnv, layout, columns, base, snapshots, decoding.decoder(), numbers);
        }
        TableDescriptor twin = descriptor.schema(layout.twin.build()).build();
        ByteReads.Read read =
                reads.read(
                        source,
                        twin,
                        flow,
                        watermarked || sharing == null ? null : sharing.get(),
                        shared ->
                                bytes(
                                        tEnv,
                                        shared ? SHARED_READ + source : base + "_bytes",
                                        twin,
                                        watermarked && WatchedDirectory.watched(options)));
        DataStream<RowData> rows = read.rows();
        OutputTag<DeadLetter> tag = new OutputTag<>("source dead letters of " + flow) {};
        DataType outType = layout.outType();
        SingleOutputStreamOperator<RowData> decoded =
                rows.process(
                                recordDecoder(
                                        flow, source, format, decoding, numbers, placing, layout,
                                        tag))
                        .returns(InternalTypeInfo.of((RowType) outType.getLogicalType()))
                        .name("decode " + source + " for " + flow)
                        .uid(uid(flow));
        view(tEnv, base, layout, columns, decoded, decoding.mode(), watermarked);
        return new Decoded(
                base,
                read,
                decoded.getSideOutput(tag),
                layout.coordinateColumns,
                layout.refused,
                layout.raw,
                watermarked);
    }

    /**
     * The stream of the twin table's rows, declared as {@code name} (which the source operator is
     * named after); read by one subtask when {@code byOne} ({@link WatchedDirectory}).
     */
    private static DataStream<RowData> bytes(
            StreamTableEnvironment tEnv, String name, TableDescriptor twin, boolean byOne) {
        tEnv.createTemporaryTable(quote(name), twin);
        Table bytesTable = tEnv.from(quote(name));
        // internal rows: no conversion to Row and back on every record
        DataStream<RowData> rows =
                tEnv.toDataStream(
                        bytesTable,
                        bytesTable
                                .getResolvedSchema()
                                .toSourceRowDataType()
                                .bridgedTo(RowData.class));
        if (byOne) {
            WatchedDirectory.readByOneSubtask(rows);
        }
        return rows;
    }

    /** The decoding step of a source read as bytes in {@code format}. */
    private static RecordDecoder recordDecoder(
            String flow,
            String source,
            String format,
            SourceFormat.Format decoding,
            ExactNumbers numbers,
            Set<String> placing,
            DecodingLayout layout,
            OutputTag<DeadLetter> tag) {
        boolean json = SourceFormat.LINE_FORMATS.contains(format);
        return new RecordDecoder(
                flow,
                source,
                decoding.decoder(),
                json || format.equals("csv"),
                format.equals("json") || format.equals("csv"),
                numbers,
                json ? new DuplicateFields() : null,
                placing,
                layout.recordLayout(),
                tag);
    }

    /** Whether the source never ends and its snapshots are timed: it gets their watermark. */
    private static boolean watermarked(SnapshotWatermark snapshots, ResolvedCatalogTable table) {
        return snapshots != null
                && SnapshotWatermark.unbounded(table.getOptions())
                && table.getResolvedSchema()
                        .getColumn(snapshots.column())
                        .map(c -> SnapshotWatermark.timed(c.getDataType().getLogicalType()))
                        .orElse(false);
    }

    /** The view the flow reads, {@code base}: the decoded rows as the source's columns. */
    private static void view(
            StreamTableEnvironment tEnv,
            String base,
            DecodingLayout layout,
            List<Column> columns,
            SingleOutputStreamOperator<RowData> decoded,
            ChangelogMode mode,
            boolean watermarked) {
        @SuppressWarnings({"unchecked", "rawtypes"})
        DataStream<Row> asRows = (DataStream) decoded; // RowData as it is, as FlowJob does
        Schema.Builder decodedSchema = Schema.newBuilder().fromRowDataType(layout.outType());
        if (watermarked) { // a table from a stream passes its watermarks on only when told to
            decodedSchema
                    .columnByMetadata(ROWTIME, DataTypes.TIMESTAMP_LTZ(3), "rowtime", true)
                    .watermark(ROWTIME, "SOURCE_WATERMARK()");
        }
        Table decodedTable = tEnv.fromChangelogStream(asRows, decodedSchema.build(), mode);
        tEnv.createTemporaryView(quote(base + "_decoded"), decodedTable);
        tEnv.executeSql(
                "CREATE TEMPORARY VIEW "
                        + quote(base)
                        + " AS "
                        + layout.viewQuery(columns, base + "_decoded"));
    }
}
