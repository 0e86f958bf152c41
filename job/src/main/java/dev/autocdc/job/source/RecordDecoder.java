package dev.autocdc.job.source;

import dev.autocdc.operators.flink.runtime.DeadLetter;
import dev.autocdc.operators.flink.runtime.EngineMetrics;
import dev.autocdc.operators.flink.spec.ControlColumn;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.RuntimeContextInitializationContextAdapters;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Decodes a source's records with the source's own format, in a step of ours after a connector that
 * read them as bytes ({@link SourceDecoding}), so that a record the format cannot read is a dead
 * letter with its bytes and reason (semantics §11) instead of a failed job. Reasons: {@value
 * DeadLetter#PARSE_ERROR} (the format threw, or the key format could not read a Kafka record's key:
 * {@link GuardedKeyFormat}), {@value DeadLetter#BLANK_RECORD} (a blank or whitespace-only record),
 * {@value DeadLetter#DUPLICATE_FIELD} (a JSON record with a field written twice in one object,
 * {@link DuplicateFields}), {@value DeadLetter#INEXACT_NUMBER} ({@link ExactNumbers}). A row of a
 * flow from snapshots whose inexact numbers are all in columns that place no row (not its key, not
 * its snapshot) is that letter too, and goes on marked refused ({@link ControlColumn#REFUSED}), to
 * hold its key at its snapshot, as any row refused there does.
 *
 * <p>In: a row of the byte-reading table, in Flink's internal form (see {@link Layout}). Out: the
 * source's physical and metadata columns, as the source table declares them, with the kind the
 * format gave (a Debezium update is two rows).
 */
final class RecordDecoder extends ProcessFunction<RowData, RowData> {
    private static final long serialVersionUID = 1L;

    /**
     * Where each output column comes from: the decoded value (its position in the format's row,
     * metadata last), or a field of the byte-reading row (a Kafka key field, connector metadata).
     */
    record Layout(
            int bytesField,
            int keyErrorField,
            int refusedField,
            int[] fromValue,
            int[] fromRow,
            DataType[] rowFieldTypes,
            int topicField,
            int partitionField,
            int offsetField)
            implements java.io.Serializable {}

    private final String flow;
    private final String source;
    private final DeserializationSchema<RowData> format;
    private final boolean text;

    /** Whether every record holds at least one row (json); a Debezium message may hold none. */
    private final boolean rowPerRecord;

    private final ExactNumbers numbers;
    private final DuplicateFields duplicates;
    private final Set<String> placing;
    private final Layout layout;
    private final OutputTag<DeadLetter> letters;
    private transient RowData.FieldGetter[] getters;
    private transient List<RowData> decoded;
    private transient Collector<RowData> into;
    private transient Counter deadLetters;

    RecordDecoder(
            String flow,
            String source,
            DeserializationSchema<RowData> format,
            boolean text,
            boolean rowPerRecord,
            ExactNumbers numbers,
            DuplicateFields duplicates,
            Set<String> placing,
            Layout layout,
            OutputTag<DeadLetter> letters) {
        this.flow = flow;
        this.source = source;
        this.format = format;
        this.text = text;
        this.rowPerRecord = rowPerRecord;
        this.numbers = numbers;
        this.duplicates = duplicates;
        this.placing = placing;
        this.layout = layout;
        this.letters = letters;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void open(OpenContext context) throws Exception {
        format.open(
                RuntimeContextInitializationContextAdapters.deserializationAdapter(
                        getRuntimeContext()));
        getters = new RowData.FieldGetter[layout.rowFieldTypes().length];
        for (int i = 0; i < getters.length; i++) {
            if (layout.rowFieldTypes()[i] != null) {
                getters[i] =
                        RowData.createFieldGetter(layout.rowFieldTypes()[i].getLogicalType(), i);
            }
        }
        decoded = new ArrayList<>(2);
        deadLetters = EngineMetrics.deadLetterCounter(getRuntimeContext().getMetricGroup(), flow);
        into =
                new Collector<>() {
                    @Override
                    public void collect(RowData r) {
                        decoded.add(r);
                    }

                    @Override
                    public void close() {}
                };
    }

    @Override
    public void processElement(RowData in, Context ctx, Collector<RowData> out) throws Exception {
        byte[] bytes = in.isNullAt(layout.bytesField()) ? null : in.getBinary(layout.bytesField());
        if (bytes == null) {
            return; // a Kafka tombstone: no record, as the formats read it
        }
        if (layout.keyErrorField() >= 0 && !in.isNullAt(layout.keyErrorField())) {
            String why = in.getString(layout.keyErrorField()).toString();
            letter(ctx, in, bytes, DeadLetter.PARSE_ERROR, why);
            return;
        }
        if (text && isBlank(bytes)) { // a binary record may well be all "whitespace" bytes
            letter(ctx, in, bytes, DeadLetter.BLANK_RECORD, "the record is blank");
            return;
        }
        String twice = duplicates == null ? null : duplicates.duplicate(bytes);
        if (twice != null) {
            letter(
                    ctx,
                    in,
                    bytes,
                    DeadLetter.DUPLICATE_FIELD,
                    "field \""
                            + twice
                            + "\" is written twice in one object: readers differ on which value"
                            + " counts; write it once");
            return;
        }
        decoded.clear();
        String held = null;
        try {
            format.deserialize(bytes, into);
        } catch (Exception e) {
            if (unavailable(e)) {
                throw e; // a service the format calls does not answer: fail and retry, lose nothing
            }
            // a number out of its type's range fails some formats: say so rather than "parse error"
            List<ExactNumbers.Inexact> inexact = inexactNumbers(bytes);
            held = heldRow(inexact);
            if (!inexact.isEmpty()) {
                letter(ctx, in, bytes, DeadLetter.INEXACT_NUMBER, inexact.get(0).message());
            }
            if (held == null || !decodeWithoutInexact(bytes)) {
                if (!inexact.isEmpty()) {
                    return;
                }
                letter(
                        ctx,
                        in,
                        bytes,
                        DeadLetter.PARSE_ERROR,
                        "the source's format could not parse the record: " + reason(e));
                return;
            }
        }
        if (decoded.contains(null) || (decoded.isEmpty() && rowPerRecord)) {
            // a JSON array of records holding a null, or none: nothing to apply, never silently
            letter(
                    ctx,
                    in,
                    bytes,
                    DeadLetter.PARSE_ERROR,
                    "the source's format read "
                            + (decoded.isEmpty() ? "no row" : "a null row")
                            + " from the record");
            return;
        }
        if (held == null && !decoded.isEmpty()) {
            List<ExactNumbers.Inexact> inexact = inexactNumbers(bytes);
            if (!inexact.isEmpty()) {
                held = heldRow(inexact);
                letter(ctx, in, bytes, DeadLetter.INEXACT_NUMBER, inexact.get(0).message());
                if (held == null) {
                    return;
                }
            }
        }
        emit(in, bytes, held, out);
    }

    /** The decoded rows as the output's columns; {@code held} marks them (null: not). */
    private void emit(RowData in, byte[] bytes, String held, Collector<RowData> out) {
        for (RowData value : decoded) {
            GenericRowData row = new GenericRowData(value.getRowKind(), layout.fromValue().length);
            for (int i = 0; i < row.getArity(); i++) {
                int v = layout.fromValue()[i];
                if (v >= 0) {
                    row.setField(i, ((GenericRowData) value).getField(v));
                } else if (i == layout.refusedField()) {
                    row.setField(i, held == null ? null : StringData.fromString(held));
                } else {
                    int f = layout.fromRow()[i];
                    row.setField(
                            i, f == layout.bytesField() ? bytes : getters[f].getFieldOrNull(in));
                }
            }
            out.collect(row);
        }
    }

    /**
     * Decodes the record again with its inexact numbers made null, for a format that refuses such a
     * number: whether that gave rows.
     */
    private boolean decodeWithoutInexact(byte[] bytes) {
        decoded.clear();
        try {
            format.deserialize(numbers.withoutInexact(bytes), into);
        } catch (Exception e) {
            return false;
        }
        return !decoded.isEmpty() && !decoded.contains(null);
    }

    /**
     * For a flow from snapshots, when no inexact number is in a column that places the row (its
     * key, its snapshot): why it is refused; it still holds its key, so it goes on marked with
     * that. Else null: the row stops here.
     */
    private String heldRow(List<ExactNumbers.Inexact> inexact) {
        if (layout.refusedField() < 0) {
            return null;
        }
        StringBuilder held = new StringBuilder();
        for (ExactNumbers.Inexact i : inexact) {
            if (placing.contains(i.column())) {
                return null;
            }
            held.append(held.length() == 0 ? "" : "; ").append(i.message());
        }
        return held.toString();
    }

    /** {@link ExactNumbers#find}, or none when there is nothing to check or it is no JSON. */
    private List<ExactNumbers.Inexact> inexactNumbers(byte[] bytes) {
        if (numbers == null) {
            return List.of();
        }
        try {
            return numbers.find(bytes, layout.refusedField() < 0);
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }

    /**
     * A format's failure in words: its message, and its root cause's when that says more (Flink's
     * formats wrap the reason in "Corrupt ... message").
     */
    static String reason(Throwable e) {
        String top = e.getMessage() == null ? e.toString() : e.getMessage();
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String why = root.getMessage();
        return root == e || why == null || top.contains(why) ? top : top + ": " + why;
    }

    /** Whether a failure is the format's service being unreachable, not the record being bad. */
    private static boolean unavailable(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof java.net.SocketException
                    || t instanceof java.net.SocketTimeoutException
                    || t instanceof java.net.UnknownHostException) {
                return true;
            }
        }
        return false;
    }

    private static boolean isBlank(byte[] bytes) {
        for (byte b : bytes) {
            if (b != ' ' && b != '\t' && b != '\r' && b != '\n') {
                return false;
            }
        }
        return true;
    }

    private void letter(Context ctx, RowData in, byte[] bytes, String reason, String message) {
        DeadLetter d =
                new DeadLetter(flow, reason, message, new String(bytes, StandardCharsets.UTF_8));
        d.source = source;
        d.raw = bytes;
        if (layout.topicField() >= 0) { // in whatever type the source declared them
            Object topic = getters[layout.topicField()].getFieldOrNull(in);
            Object partition = getters[layout.partitionField()].getFieldOrNull(in);
            Object offset = getters[layout.offsetField()].getFieldOrNull(in);
            d.topic = topic == null ? null : topic.toString();
            d.partition = partition instanceof Number n ? n.intValue() : null;
            d.offset = offset instanceof Number n ? n.longValue() : null;
        }
        deadLetters.inc(); // and by reason where the letters meet (LetterCounts)
        ctx.output(letters, d);
    }
}
