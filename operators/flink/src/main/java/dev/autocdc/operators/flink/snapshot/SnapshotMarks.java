package dev.autocdc.operators.flink.snapshot;

import dev.autocdc.operators.core.SnapshotId;
import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.runtime.EventDecoder;
import dev.autocdc.operators.flink.runtime.SequenceClock;
import dev.autocdc.operators.flink.spec.ControlColumn;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.state.StateDescriptors;
import dev.autocdc.operators.flink.state.StateNames;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.TreeMap;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalSerializers;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.OutputTag;

/**
 * The first step of a flow from snapshots (semantics §10), on every source subtask before the keyed
 * exchange: passes the data rows on, counts the rows of each snapshot it sees (inserted rows with a
 * key: a row that changes nothing makes no snapshot), and when its watermark passes a snapshot
 * (every split of this subtask has), announces it with its count as a <em>mark</em> on the side
 * output {@link #marks}, before forwarding that watermark; {@link SnapshotCompletion} sums them. An
 * end row (APPLY AS SNAPSHOT END WHEN) counts no row and is not passed on; an end row whose
 * sequences cannot be read is passed on, for the keyed step to dead-letter. A row of a snapshot the
 * watermark has passed is passed on uncounted: the keyed step sends it to the late events. A
 * bounded input ends with the greatest watermark, which announces every snapshot.
 *
 * <p>A mark is a row of {@link #markType}: the snapshot's {@link SnapshotId} (BYTES), its time
 * (BIGINT: the {@link SequenceClock} of its version, bitemporal of its system sequence; {@link
 * Long#MAX_VALUE} when that type has no number, so that it completes only at the end of a bounded
 * input), its version and system sequence as the input holds them (null system sequence unless
 * bitemporal), from which a delete at the snapshot is written, its rows (here: this subtask's) and
 * whether it is held ({@link SnapshotCompletion}).
 *
 * <p>Operator state {@value StateNames#SNAPSHOTS_COUNTING}: the snapshots counted and not yet
 * announced.
 */
public final class SnapshotMarks extends AbstractStreamOperator<RowData>
        implements OneInputStreamOperator<RowData, RowData> {
    private static final long serialVersionUID = 1L;

    public static final int ID = 0;
    public static final int TIME = 1;
    public static final int SEQUENCE = 2;
    public static final int SYSTEM_SEQUENCE = 3;
    public static final int ROWS = 4;
    public static final int HELD = 5;

    private final EngineSpec spec;
    private final OutputTag<RowData> marks;
    private transient EventDecoder decoder;
    private transient SequenceClock clock;
    private transient RowData.FieldGetter sequence;
    private transient RowData.FieldGetter systemSequence;

    /** Flink's copiers of the two sequences' internal values (a string or row is a view). */
    private transient TypeSerializer<Object> sequenceCopier;

    private transient TypeSerializer<Object> systemSequenceCopier;
    private transient RowData.FieldGetter[] keys;
    private transient ListState<RowData> state;

    /** The snapshots seen and not yet passed by the watermark, by id, as marks with counts. */
    private transient TreeMap<byte[], GenericRowData> counting;

    private transient long watermark;

    public SnapshotMarks(EngineSpec spec) {
        this.spec = spec;
        this.marks = marks(spec);
    }

    /** The side output of the marks. */
    public static OutputTag<RowData> marks(EngineSpec spec) {
        return new OutputTag<>(
                "auto-cdc-snapshot-marks-" + spec.flow().name(),
                InternalTypeInfo.of(markType(spec)));
    }

    /** The state of the complete snapshots, {@link #markType} values by snapshot id. */
    static MapStateDescriptor<String, RowData> completeDescriptor(EngineSpec spec) {
        return StateDescriptors.snapshotsComplete(markType(spec));
    }

    /**
     * id BYTES, time BIGINT, version (the sequence's type), system sequence (or BOOLEAN), rows
     * BIGINT, held BOOLEAN.
     */
    public static RowType markType(EngineSpec spec) {
        LogicalType seq = spec.inputType().getTypeAt(spec.field(ControlColumn.SEQUENCE));
        LogicalType sys =
                spec.field(ControlColumn.SYSTEM_SEQUENCE) >= 0
                        ? spec.inputType().getTypeAt(spec.field(ControlColumn.SYSTEM_SEQUENCE))
                        : new BooleanType();
        return RowType.of(
                new LogicalType[] {
                    new VarBinaryType(VarBinaryType.MAX_LENGTH),
                    new BigIntType(false),
                    seq,
                    sys,
                    new BigIntType(false),
                    new BooleanType(false)
                },
                new String[] {"id", "time", "version", "system_sequence", "rows", "held"});
    }

    /** The time of a snapshot row ({@link SnapshotMarks}); the flow's clock, else MAX_VALUE. */
    public static long time(SequenceClock clock, RowData row) {
        return clock == null ? Long.MAX_VALUE : clock.read(row);
    }

    /** The clock snapshots are timed by (version; bitemporal: system sequence), or null. */
    static SequenceClock clock(EngineSpec spec) {
        return SequenceClock.of(spec);
    }

    static boolean isEnd(EngineSpec spec, RowData row) {
        return EventDecoder.isSnapshotEnd(spec, row);
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        decoder = new EventDecoder(spec, null); // snapshotId() counts nothing
        clock = clock(spec);
        List<LogicalType> types = spec.inputType().getChildren();
        sequence =
                RowData.createFieldGetter(
                        types.get(spec.field(ControlColumn.SEQUENCE)),
                        spec.field(ControlColumn.SEQUENCE));
        systemSequence =
                spec.flow().targetType() == TargetType.BITEMPORAL
                        ? RowData.createFieldGetter(
                                types.get(spec.field(ControlColumn.SYSTEM_SEQUENCE)),
                                spec.field(ControlColumn.SYSTEM_SEQUENCE))
                        : null;
        sequenceCopier = InternalSerializers.create(types.get(spec.field(ControlColumn.SEQUENCE)));
        systemSequenceCopier =
                systemSequence == null
                        ? null
                        : InternalSerializers.create(
                                types.get(spec.field(ControlColumn.SYSTEM_SEQUENCE)));
        int[] keyIndexes = spec.flow().keyIndexes();
        keys = new RowData.FieldGetter[keyIndexes.length];
        for (int i = 0; i < keys.length; i++) {
            int f = spec.baseFields()[keyIndexes[i]];
            keys[i] = RowData.createFieldGetter(types.get(f), f);
        }
        state =
                context.getOperatorStateStore()
                        .getListState(StateDescriptors.snapshotsCounting(markType(spec)));
        counting = new TreeMap<>(SnapshotId::compare);
        watermark = Long.MIN_VALUE;
        for (RowData m : state.get()) { // rescaled: the counts add up wherever they land
            byte[] id = m.getBinary(ID);
            GenericRowData known = counting.get(id);
            if (known == null) {
                counting.put(id, copy(m));
            } else {
                known.setField(ROWS, known.getLong(ROWS) + m.getLong(ROWS));
            }
        }
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        state.update(new ArrayList<>(counting.values()));
    }

    @Override
    public void processElement(StreamRecord<RowData> element) {
        RowData row = element.getValue();
        boolean end = isEnd(spec, row);
        byte[] id = decoder.snapshotId(row);
        if (id != null && time(clock, row) > watermark && (end || isSnapshotRow(row))) {
            GenericRowData mark = counting.get(id);
            if (mark == null) {
                mark = new GenericRowData(6);
                mark.setField(ID, id);
                mark.setField(TIME, time(clock, row));
                // copies: the mark outlives the row, which an upstream operator may reuse
                mark.setField(SEQUENCE, copy(sequenceCopier, sequence.getFieldOrNull(row)));
                mark.setField(
                        SYSTEM_SEQUENCE,
                        systemSequence == null
                                ? null
                                : copy(systemSequenceCopier, systemSequence.getFieldOrNull(row)));
                mark.setField(ROWS, 0L);
                mark.setField(HELD, false);
                counting.put(id, mark);
            }
            if (!end) {
                mark.setField(ROWS, mark.getLong(ROWS) + 1);
            }
        }
        if (!end || id == null) {
            output.collect(element);
        }
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        watermark = Math.max(watermark, mark.getTimestamp());
        for (Iterator<GenericRowData> it = counting.values().iterator(); it.hasNext(); ) {
            GenericRowData m = it.next();
            if (m.getLong(TIME) <= watermark) {
                output.collect(marks, new StreamRecord<>(m));
                it.remove();
            }
        }
        super.processWatermark(mark);
    }

    /**
     * Whether a data row makes its snapshot exist: an inserted row with a key. The keyed step
     * dead-letters or skips the others, and a row that changes nothing must not create a snapshot
     * that deletes every other key.
     */
    private boolean isSnapshotRow(RowData row) {
        if (row.getRowKind() != RowKind.INSERT && row.getRowKind() != RowKind.UPDATE_AFTER) {
            return false;
        }
        for (RowData.FieldGetter k : keys) {
            if (k.getFieldOrNull(row) == null) {
                return false;
            }
        }
        return true;
    }

    private GenericRowData copy(RowData m) {
        GenericRowData c = new GenericRowData(6);
        c.setField(ID, m.getBinary(ID));
        c.setField(TIME, m.getLong(TIME));
        RowType type = markType(spec);
        c.setField(
                SEQUENCE,
                RowData.createFieldGetter(type.getTypeAt(SEQUENCE), SEQUENCE).getFieldOrNull(m));
        c.setField(
                SYSTEM_SEQUENCE,
                RowData.createFieldGetter(type.getTypeAt(SYSTEM_SEQUENCE), SYSTEM_SEQUENCE)
                        .getFieldOrNull(m));
        c.setField(ROWS, m.getLong(ROWS));
        c.setField(HELD, m.getBoolean(HELD));
        return c;
    }

    private static Object copy(TypeSerializer<Object> copier, Object value) {
        return value == null ? null : copier.copy(value);
    }
}
