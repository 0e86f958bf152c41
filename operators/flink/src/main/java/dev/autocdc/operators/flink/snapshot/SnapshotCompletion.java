package dev.autocdc.operators.flink.snapshot;

import dev.autocdc.operators.core.SnapshotId;
import dev.autocdc.operators.flink.runtime.DeadLetter;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.state.StateDescriptors;
import dev.autocdc.operators.flink.state.StateNames;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;

/**
 * Decides when a snapshot is complete (semantics §10), with parallelism 1: it sums the marks of
 * every source subtask ({@link SnapshotMarks}, each sent before the watermark that passes its
 * snapshot) and, when its watermark (the least of every split's) reaches a snapshot's time, emits
 * the mark as complete, in snapshot order, before it forwards that watermark. Broadcast to every
 * keyed instance, a complete mark therefore arrives before the watermark that fires the keys'
 * timers for it. A bounded input ends with the greatest watermark, which completes every snapshot;
 * nothing completes by an idle timeout.
 *
 * <p>The safety valve ({@link EngineSpec#snapshotHoldThreshold}): a snapshot with fewer rows than
 * {@code 1 - threshold} times the last complete one's is <em>held</em>: emitted once with its held
 * flag (the keyed step sends its rows to the late events, {@value DeadLetter#SNAPSHOT_HELD}),
 * counted (the metric {@value #HELD_METRIC} and the accumulator {@link #heldAccumulator}), and
 * neither it nor any later snapshot completes; the watermark forwarded stays just below it, so the
 * keyed step keeps every later row waiting. A restore with a larger threshold decides again.
 *
 * <p>Operator state: {@value StateNames#SNAPSHOTS_WAITING} (the marks not yet complete, summed) and
 * {@value StateNames#SNAPSHOTS_LAST_ROWS} (the rows of the last complete snapshot).
 */
public final class SnapshotCompletion extends AbstractStreamOperator<RowData>
        implements OneInputStreamOperator<RowData, RowData> {
    private static final long serialVersionUID = 1L;

    /** The flow's counter of snapshots held, in its metric group {@code flow/<name>}. */
    public static final String HELD_METRIC = "num_snapshots_held";

    private final RowType markType;
    private final String flow;
    private final Double holdThreshold;
    private transient RowDataSerializer marks;
    private transient ListState<RowData> state;
    private transient ListState<Long> lastRowsState;
    private transient TreeMap<byte[], RowData> waiting;
    private transient long watermark;
    private transient long forwarded;
    private transient Long lastRows;
    private transient byte[] heldNotified;
    private transient Counter held;

    /**
     * @param holdThreshold the share of the last snapshot's rows a snapshot may lack; null: never
     *     hold
     */
    public SnapshotCompletion(RowType markType, String flow, Double holdThreshold) {
        this.markType = markType;
        this.flow = flow;
        this.holdThreshold = holdThreshold;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        marks = new RowDataSerializer(markType);
        state =
                context.getOperatorStateStore()
                        .getListState(StateDescriptors.snapshotsWaiting(markType));
        lastRowsState =
                context.getOperatorStateStore().getListState(StateDescriptors.snapshotsLastRows());
        waiting = new TreeMap<>(SnapshotId::compare);
        watermark = Long.MIN_VALUE;
        forwarded = Long.MIN_VALUE;
        for (RowData mark : state.get()) {
            add(mark);
        }
        for (Long rows : lastRowsState.get()) {
            lastRows = rows;
        }
    }

    @Override
    public void open() throws Exception {
        super.open();
        held = getMetricGroup().addGroup("flow", flow).counter(HELD_METRIC);
    }

    /** The name of the accumulator that counts a flow's snapshots held, for a run's summary. */
    public static String heldAccumulator(String flow) {
        return "autocdc|" + flow + "|snapshots held";
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        state.update(new ArrayList<>(waiting.values()));
        lastRowsState.update(lastRows == null ? List.of() : List.of(lastRows));
    }

    @Override
    public void processElement(StreamRecord<RowData> element) {
        add(element.getValue());
    }

    /**
     * Adds a subtask's mark to the snapshot's sum. A subtask sends it before its watermark passes
     * the snapshot, so it cannot come after this instance's watermark did; if it did, it is
     * dropped: completing it now would delete keys at a snapshot whose rows went to the late
     * events.
     */
    private void add(RowData mark) {
        if (mark.getLong(SnapshotMarks.TIME) <= watermark) {
            return;
        }
        byte[] id = mark.getBinary(SnapshotMarks.ID);
        RowData known = waiting.get(id);
        if (known == null) {
            waiting.put(id, marks.copy(mark));
        } else {
            GenericRowData sum = copy(known);
            sum.setField(
                    SnapshotMarks.ROWS,
                    known.getLong(SnapshotMarks.ROWS) + mark.getLong(SnapshotMarks.ROWS));
            waiting.put(id, sum);
        }
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        watermark = Math.max(watermark, mark.getTimestamp());
        long through = watermark;
        for (Iterator<Map.Entry<byte[], RowData>> it = waiting.entrySet().iterator();
                it.hasNext(); ) {
            RowData m = it.next().getValue();
            long time = m.getLong(SnapshotMarks.TIME);
            if (time > watermark) {
                break; // times follow the snapshots' order
            }
            long rows = m.getLong(SnapshotMarks.ROWS);
            if (holdThreshold != null
                    && lastRows != null
                    && rows < (1 - holdThreshold) * lastRows) {
                if (heldNotified == null
                        || SnapshotId.compare(heldNotified, m.getBinary(SnapshotMarks.ID)) != 0) {
                    heldNotified = m.getBinary(SnapshotMarks.ID);
                    held.inc();
                    getRuntimeContext().getLongCounter(heldAccumulator(flow)).add(1L);
                    GenericRowData notice = copy(m);
                    notice.setField(SnapshotMarks.HELD, true);
                    output.collect(new StreamRecord<>(notice));
                }
                through = Math.min(through, time - 1);
                break; // nothing after a held snapshot completes
            }
            output.collect(new StreamRecord<>(m));
            lastRows = rows;
            it.remove();
        }
        if (through > forwarded) {
            forwarded = through;
            super.processWatermark(new Watermark(through));
        }
    }

    private GenericRowData copy(RowData m) {
        GenericRowData c = new GenericRowData(markType.getFieldCount());
        for (int i = 0; i < c.getArity(); i++) {
            c.setField(i, RowData.createFieldGetter(markType.getTypeAt(i), i).getFieldOrNull(m));
        }
        return c;
    }
}
