package dev.autocdc.operators.flink.runtime;

import dev.autocdc.operators.core.ChangeEvent;
import dev.autocdc.operators.core.ColumnType;
import dev.autocdc.operators.core.Flow;
import dev.autocdc.operators.core.Op;
import dev.autocdc.operators.core.SequenceCodec;
import dev.autocdc.operators.core.SnapshotId;
import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.spec.ControlColumn;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.spec.TypeMapping;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;

/**
 * Turns an input row (laid out as {@link EngineSpec} describes) into the engine's {@link
 * ChangeEvent}, or into a {@link DeadLetter} with its reason (semantics §11): a value that does not
 * convert, a CAST in a clause that fails, a null key or sequence, a bad COLUMNS TO UPDATE list, a
 * truncate where none may be (records a source's format cannot read are the job's to catch). Never
 * throws for bad input. Every letter carries the flow, the row as JSON text and the Kafka
 * coordinates the row has, and is counted.
 */
public final class EventDecoder {
    /** Where a decoder's letters go. */
    interface Letters {
        void deadLetter(DeadLetter letter);
    }

    private final EngineSpec spec;
    private final Flow flow;
    private final EngineMetrics metrics;
    private final RowData.FieldGetter[] baseGetters;
    private final LogicalType[] baseTypes;
    private final RowData.FieldGetter[] inputGetters;
    private final LogicalType[] inputTypes;
    private final RowLetters rowLetters;
    private final int castFailed;
    private final int refused;

    /** The flow's key columns (read once: {@link Flow#keyIndexes} returns a copy). */
    private final int[] keyIndexes;

    public EventDecoder(EngineSpec spec, EngineMetrics metrics) {
        this.spec = spec;
        this.flow = spec.flow();
        this.metrics = metrics;
        RowType input = spec.inputType();
        int[] base = spec.baseFields();
        baseGetters = new RowData.FieldGetter[base.length];
        baseTypes = new LogicalType[base.length];
        for (int i = 0; i < base.length; i++) {
            baseTypes[i] = input.getTypeAt(base[i]);
            baseGetters[i] = RowData.createFieldGetter(baseTypes[i], base[i]);
        }
        inputTypes = input.getChildren().toArray(new LogicalType[0]);
        inputGetters = new RowData.FieldGetter[inputTypes.length];
        for (int i = 0; i < inputTypes.length; i++) {
            inputGetters[i] = RowData.createFieldGetter(inputTypes[i], i);
        }
        rowLetters = new RowLetters(spec, inputTypes, inputGetters);
        castFailed = spec.field(ControlColumn.CAST_FAILED);
        refused = spec.field(ControlColumn.REFUSED);
        keyIndexes = flow.keyIndexes();
    }

    /**
     * The row's event, or null after handing its dead letter to {@code letters}.
     *
     * @param truncateAllowed whether a truncate may come this way (the broadcast input of a flow
     *     with truncates); elsewhere it is a dead letter
     */
    ChangeEvent decode(RowData input, boolean truncateAllowed, Letters letters) {
        DeadLetter refused = refusal(input, truncateAllowed);
        if (refused != null) {
            metrics.deadLettered.inc();
            letters.deadLetter(refused);
            return null;
        }
        Object[] row = new Object[baseGetters.length];
        Object sequence;
        Object system = null;
        try {
            for (int i = 0; i < row.length; i++) {
                row[i] = TypeMapping.toJava(baseTypes[i], baseGetters[i].getFieldOrNull(input));
            }
            sequence = field(input, spec.field(ControlColumn.SEQUENCE));
            if (spec.field(ControlColumn.SYSTEM_SEQUENCE) >= 0) {
                system = field(input, spec.field(ControlColumn.SYSTEM_SEQUENCE));
            }
        } catch (RuntimeException e) {
            return reject(
                    input,
                    letters,
                    DeadLetter.BAD_VALUE,
                    "a value does not convert: " + e.getMessage());
        }
        Op op =
                flag(input, spec.field(ControlColumn.TRUNCATE))
                        ? Op.TRUNCATE
                        : flag(input, spec.field(ControlColumn.DELETE))
                                        || input.getRowKind() == RowKind.DELETE
                                ? Op.DELETE
                                : Op.UPSERT;
        byte[] systemBytes =
                flow.targetType() == TargetType.BITEMPORAL
                        ? flow.systemSequenceCodec().encode(system)
                        : null;
        boolean[] written = null;
        List<String> list = columnsToUpdate(input);
        if (list != null) {
            written = new boolean[row.length];
            for (String name : list) {
                if (!name.isEmpty()) {
                    written[flow.indexOf(name)] = true; // a value column: refusal() checked it
                }
            }
        }
        return new ChangeEvent(
                op, row, flow.sequenceCodec().encode(sequence), systemBytes, written);
    }

    /**
     * The dead letter of a row that the row alone refuses, uncounted; null when it passes. The
     * reasons, in this order: a CAST in a clause that failed, a truncate where none may be, a null
     * key (but for a truncate), a null or incomplete sequence (and system sequence), a COLUMNS TO
     * UPDATE list naming a column that is not a value column. A row it passes may still be refused
     * by {@link #decode}: a value that does not convert.
     */
    DeadLetter refusal(RowData input, boolean truncateAllowed) {
        if (castFailed >= 0 && !input.isNullAt(castFailed)) {
            return letter(
                    input,
                    DeadLetter.BAD_CAST,
                    "a CAST in "
                            + input.getString(castFailed)
                            + " could not convert the record's value");
        }
        boolean truncate = flag(input, spec.field(ControlColumn.TRUNCATE));
        if (truncate && !truncateAllowed) {
            return letter(
                    input,
                    DeadLetter.UNSUPPORTED_TRUNCATE,
                    "a truncate reached the keyed input: route truncates through the broadcast"
                            + " input (AutoCdc.apply does), since they apply to every key");
        }
        if (!truncate) { // a truncate needs no key
            DeadLetter nullKey = nullKey(input);
            if (nullKey != null) {
                return nullKey;
            }
        }
        try {
            if (!complete(input, spec.field(ControlColumn.SEQUENCE), flow.sequenceCodec())) {
                return letter(
                        input,
                        DeadLetter.NULL_SEQUENCE,
                        "the SEQUENCE BY value is null or has a null field");
            }
            if (flow.targetType() == TargetType.BITEMPORAL
                    && !complete(
                            input,
                            spec.field(ControlColumn.SYSTEM_SEQUENCE),
                            flow.systemSequenceCodec())) {
                return letter(
                        input,
                        DeadLetter.NULL_SYSTEM_SEQUENCE,
                        "the SYSTEM SEQUENCE BY value is null or has a null field");
            }
        } catch (RuntimeException e) {
            return null; // a value that does not convert: decode() says so
        }
        List<String> list = columnsToUpdate(input);
        if (list != null) {
            for (String name : list) {
                if (!name.isEmpty() && !flow.isValueColumn(flow.indexOf(name))) {
                    return letter(
                            input,
                            DeadLetter.BAD_COLUMNS_TO_UPDATE,
                            "COLUMNS TO UPDATE names "
                                    + name
                                    + ", which is not a value column of the target "
                                    + flow.columnNames());
                }
            }
        }
        return null;
    }

    /**
     * Whether a row of a flow from snapshots is an end row (APPLY AS SNAPSHOT END WHEN): no data.
     */
    public static boolean isSnapshotEnd(EngineSpec spec, RowData row) {
        return flag(row, spec.field(ControlColumn.SNAPSHOT_END));
    }

    /**
     * Whether the row was refused before the keyed exchange ({@link ControlColumn#REFUSED}): its
     * letter is out, and it only holds its key.
     */
    public boolean refusedBefore(RowData input) {
        return refused >= 0 && !input.isNullAt(refused);
    }

    /** The key columns of a row, as Java values. */
    Object[] key(RowData input) {
        Object[] key = new Object[keyIndexes.length];
        for (int i = 0; i < key.length; i++) {
            int k = keyIndexes[i];
            key[i] = TypeMapping.toJava(baseTypes[k], baseGetters[k].getFieldOrNull(input));
        }
        return key;
    }

    /** The dead letter of a row with a null key column, uncounted; null when it has its key. */
    DeadLetter nullKey(RowData input) {
        for (int k : keyIndexes) {
            if (input.isNullAt(spec.baseFields()[k])) {
                return letter(
                        input,
                        DeadLetter.NULL_KEY,
                        "key column " + flow.columnNames().get(k) + " is null");
            }
        }
        return null;
    }

    /** The row's COLUMNS TO UPDATE list, each name trimmed; null when none. */
    private List<String> columnsToUpdate(RowData input) {
        int pos = spec.field(ControlColumn.COLUMNS_TO_UPDATE);
        Object list =
                flow.hasColumnsToUpdate() && pos >= 0
                        ? inputGetters[pos].getFieldOrNull(input)
                        : null;
        if (list == null) {
            return null;
        }
        List<String> names = new ArrayList<>();
        if (list instanceof ArrayData a) {
            for (int i = 0; i < a.size(); i++) {
                if (!a.isNullAt(i)) {
                    names.add(a.getString(i).toString().trim());
                }
            }
        } else {
            for (String s : list.toString().split(",")) {
                names.add(s.trim());
            }
        }
        return names;
    }

    /**
     * The letter for the late-events output: the event lands before the history its key still
     * holds.
     */
    DeadLetter erasedBeyondState(RowData input) {
        return letter(
                input,
                DeadLetter.ERASED_BEYOND_STATE,
                "the key is erased from state and its rows there deleted, but history of it had"
                    + " left state (history retention, or its tombstone expired): those rows are in"
                    + " the target only; delete them there by key");
    }

    DeadLetter beforeRetainedHistory(RowData input) {
        return letter(
                input,
                DeadLetter.BEFORE_RETAINED_HISTORY,
                "the event's sequence is at or before the oldest sequence the key still holds; the"
                        + " history it would change left state (history retention, or the key's"
                        + " tombstone expired)");
    }

    /**
     * The id ({@link SnapshotId}) of the snapshot a row of a flow from snapshots belongs to, or
     * null when its sequences cannot be read (null, or a value that does not convert).
     */
    public byte[] snapshotId(RowData input) {
        try {
            Object sequence = field(input, spec.field(ControlColumn.SEQUENCE));
            if (!flow.sequenceCodec().isComplete(sequence)) {
                return null;
            }
            byte[] system = null;
            if (flow.targetType() == TargetType.BITEMPORAL) {
                Object sys = field(input, spec.field(ControlColumn.SYSTEM_SEQUENCE));
                if (!flow.systemSequenceCodec().isComplete(sys)) {
                    return null;
                }
                system = flow.systemSequenceCodec().encode(sys);
            }
            return SnapshotId.of(flow.sequenceCodec().encode(sequence), system);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** The encoded SEQUENCE BY of a row whose sequence can be read: a snapshot's version. */
    public byte[] sequence(RowData input) {
        return flow.sequenceCodec().encode(field(input, spec.field(ControlColumn.SEQUENCE)));
    }

    /** A dead letter or late event of the row, with its reason and message, uncounted. */
    public DeadLetter letterOf(RowData input, String reason, String message) {
        return letter(input, reason, message);
    }

    private ChangeEvent reject(RowData input, Letters letters, String reason, String message) {
        metrics.deadLettered.inc();
        letters.deadLetter(letter(input, reason, message));
        return null;
    }

    private DeadLetter letter(RowData input, String reason, String message) {
        return rowLetters.of(flow.name(), reason, message, input);
    }

    /**
     * Whether the sequence at {@code pos} has no null anywhere; a scalar is read by its null bit
     * alone (not converted twice per event: {@link #decode} converts it).
     */
    private boolean complete(RowData input, int pos, SequenceCodec codec) {
        return codec.type().kind() != ColumnType.Kind.ROW
                ? !input.isNullAt(pos)
                : codec.isComplete(field(input, pos));
    }

    private Object field(RowData input, int pos) {
        return TypeMapping.toJava(inputTypes[pos], inputGetters[pos].getFieldOrNull(input));
    }

    private static boolean flag(RowData input, int pos) {
        return pos >= 0 && !input.isNullAt(pos) && input.getBoolean(pos);
    }
}
