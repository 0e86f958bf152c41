package dev.autocdc.operators.flink;

import dev.autocdc.operators.core.SnapshotId;
import dev.autocdc.operators.core.TargetType;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * The first step of a flow from snapshots (SPEC §10), on every source subtask before the keyed
 * exchange: passes the data rows on, and announces each snapshot it sees, once, as a <em>mark</em>
 * on the side output {@link #marks}, which {@link SnapshotCompletion} collects. An end row (APPLY
 * AS SNAPSHOT END WHEN) is announced and not passed on; an end row whose sequences cannot be read
 * is passed on, for the keyed step to dead-letter.
 *
 * <p>A mark is a row of {@link #markType}: the snapshot's {@link SnapshotId} (BYTES), its time
 * (BIGINT: the {@link SequenceClock} of its version, bitemporal of its system sequence; {@link
 * Long#MAX_VALUE} when that type has no number, so that it completes only at the end of a bounded
 * input), and its version and system sequence as the input holds them (null system sequence unless
 * bitemporal), from which a delete at the snapshot is written.
 *
 * <p>A mark leaves before the watermark that passes it, on the same channel: so that whoever sees
 * the watermark pass a snapshot's time has seen its mark. A subtask forgets the snapshots the
 * watermark has passed: a later row of one of them is late, and the keyed step says so.
 */
final class SnapshotMarks extends ProcessFunction<RowData, RowData> {
    private static final long serialVersionUID = 1L;

    static final int ID = 0;
    static final int TIME = 1;
    static final int SEQUENCE = 2;
    static final int SYSTEM_SEQUENCE = 3;

    private final EngineSpec spec;
    private final OutputTag<RowData> marks;
    private transient EventDecoder decoder;
    private transient SequenceClock clock;
    private transient RowData.FieldGetter sequence;
    private transient RowData.FieldGetter systemSequence;

    /** The snapshots announced and not yet passed by the watermark, by time. */
    private transient TreeMap<Long, List<byte[]>> announced;

    SnapshotMarks(EngineSpec spec) {
        this.spec = spec;
        this.marks = marks(spec);
    }

    /** The side output of the marks. */
    static OutputTag<RowData> marks(EngineSpec spec) {
        return new OutputTag<>(
                "auto-cdc-snapshot-marks-" + spec.flow().name(),
                InternalTypeInfo.of(markType(spec)));
    }

    /** id BYTES, time BIGINT, version (the sequence's type), system sequence (or BOOLEAN). */
    static RowType markType(EngineSpec spec) {
        LogicalType seq = spec.inputType().getTypeAt(spec.sequenceField());
        LogicalType sys =
                spec.systemSequenceField() >= 0
                        ? spec.inputType().getTypeAt(spec.systemSequenceField())
                        : new BooleanType();
        return RowType.of(
                new LogicalType[] {
                    new VarBinaryType(VarBinaryType.MAX_LENGTH), new BigIntType(false), seq, sys
                },
                new String[] {"id", "time", "version", "system_sequence"});
    }

    /** The time of a snapshot row ({@link SnapshotMarks}); the flow's clock, else MAX_VALUE. */
    static long time(SequenceClock clock, RowData row) {
        return clock == null ? Long.MAX_VALUE : clock.read(row);
    }

    /** The clock snapshots are timed by (version; bitemporal: system sequence), or null. */
    static SequenceClock clock(EngineSpec spec) {
        return spec.clock();
    }

    static boolean isEnd(EngineSpec spec, RowData row) {
        int f = spec.snapshotEndField();
        return f >= 0 && !row.isNullAt(f) && row.getBoolean(f);
    }

    @Override
    public void processElement(RowData row, Context ctx, Collector<RowData> out) {
        if (decoder == null) {
            decoder = new EventDecoder(spec, null); // snapshotId() counts nothing
            clock = clock(spec);
            announced = new TreeMap<>();
            List<LogicalType> types = spec.inputType().getChildren();
            sequence =
                    RowData.createFieldGetter(
                            types.get(spec.sequenceField()), spec.sequenceField());
            systemSequence =
                    spec.flow().targetType() == TargetType.BITEMPORAL
                            ? RowData.createFieldGetter(
                                    types.get(spec.systemSequenceField()),
                                    spec.systemSequenceField())
                            : null;
        }
        boolean end = isEnd(spec, row);
        byte[] id = decoder.snapshotId(row);
        if (id != null) {
            announce(row, id, ctx);
        }
        if (!end || id == null) {
            out.collect(row);
        }
    }

    private void announce(RowData row, byte[] id, Context ctx) {
        long watermark = ctx.timerService().currentWatermark();
        Iterator<Map.Entry<Long, List<byte[]>>> passed =
                announced.headMap(watermark, true).entrySet().iterator();
        while (passed.hasNext()) {
            passed.next();
            passed.remove();
        }
        long time = time(clock, row);
        if (time <= watermark) {
            return; // late: the keyed step sends the row to the late events
        }
        List<byte[]> same = announced.computeIfAbsent(time, t -> new ArrayList<>(1));
        for (byte[] known : same) {
            if (SnapshotId.compare(known, id) == 0) {
                return;
            }
        }
        same.add(id);
        GenericRowData mark = new GenericRowData(4);
        mark.setField(ID, id);
        mark.setField(TIME, time);
        mark.setField(SEQUENCE, sequence.getFieldOrNull(row));
        mark.setField(
                SYSTEM_SEQUENCE,
                systemSequence == null ? null : systemSequence.getFieldOrNull(row));
        ctx.output(marks, mark);
    }
}
