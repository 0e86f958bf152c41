package dev.autocdc.operators.flink;

import dev.autocdc.operators.core.SnapshotId;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.TreeMap;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;

/**
 * Decides when a snapshot is complete (SPEC §10), with parallelism 1: it collects the marks of
 * every source subtask ({@link SnapshotMarks}) and, when its watermark (the least of every split's,
 * which Flink's sources track per split) reaches a snapshot's time, emits the mark as complete,
 * before it forwards that watermark. Broadcast to every keyed instance, a complete mark therefore
 * arrives before the watermark that fires the keys' timers for it. A bounded input ends with the
 * greatest watermark, which completes every snapshot; nothing completes by an idle timeout. A mark
 * that arrives when the watermark has passed its time is dropped: its rows are late.
 *
 * <p>Operator state {@value #WAITING}: the marks not yet complete.
 */
final class SnapshotCompletion extends AbstractStreamOperator<RowData>
        implements OneInputStreamOperator<RowData, RowData> {
    private static final long serialVersionUID = 1L;

    /** Operator state: the marks announced and not yet complete. */
    static final String WAITING = "auto-cdc-snapshots-waiting";

    private final RowType markType;
    private transient RowDataSerializer marks;
    private transient ListState<RowData> state;
    private transient TreeMap<byte[], RowData> waiting;
    private transient long watermark;

    SnapshotCompletion(RowType markType) {
        this.markType = markType;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        marks = new RowDataSerializer(markType);
        state =
                context.getOperatorStateStore()
                        .getListState(
                                new ListStateDescriptor<>(WAITING, InternalTypeInfo.of(markType)));
        waiting = new TreeMap<>(SnapshotId::compare);
        watermark = Long.MIN_VALUE;
        for (RowData mark : state.get()) {
            waiting.put(mark.getBinary(SnapshotMarks.ID), mark);
        }
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        state.update(new ArrayList<>(waiting.values()));
    }

    @Override
    public void processElement(StreamRecord<RowData> element) {
        RowData mark = element.getValue();
        if (mark.getLong(SnapshotMarks.TIME) > watermark) {
            waiting.putIfAbsent(mark.getBinary(SnapshotMarks.ID), marks.copy(mark));
        }
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        watermark = Math.max(watermark, mark.getTimestamp());
        List<RowData> complete = new ArrayList<>();
        for (Iterator<RowData> it = waiting.values().iterator(); it.hasNext(); ) {
            RowData m = it.next();
            if (m.getLong(SnapshotMarks.TIME) <= watermark) {
                complete.add(m);
                it.remove();
            }
        }
        for (RowData m : complete) {
            output.collect(new StreamRecord<>(m));
        }
        super.processWatermark(mark);
    }
}
