package dev.autocdc.operators.flink.snapshot;

import dev.autocdc.operators.core.SnapshotId;
import dev.autocdc.operators.flink.runtime.DeadLetter;
import dev.autocdc.operators.flink.runtime.FlowRuntime;
import dev.autocdc.operators.flink.runtime.SequenceClock;
import dev.autocdc.operators.flink.runtime.SideOutputs;
import dev.autocdc.operators.flink.state.StateAccessCounter;
import dev.autocdc.operators.flink.state.StateNames;
import dev.autocdc.operators.flink.state.WideningRowSerializer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.streaming.api.TimerService;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;

/**
 * The current key's rows of snapshots it has not applied, in the keyed map {@value
 * StateNames#SNAPSHOT_PENDING}: snapshot id (as {@link CompleteSnapshots#key}) to the key's rows in
 * it, as they arrived. A row that was dead-lettered when it arrived but whose key and sequences
 * could be read is kept with row kind UPDATE_BEFORE, which no snapshot row has, and only holds the
 * key's state at that snapshot. The first row of a snapshot sets an event-time timer at the
 * snapshot's time ({@link SnapshotMarks#time}); rows leave when their snapshot is applied or when
 * it can never apply, then to the late events ({@value DeadLetter#SNAPSHOT_OUT_OF_ORDER}). Every
 * state access is counted.
 */
final class SnapshotPendingRows {
    private final MapState<String, List<RowData>> pending;
    private final FlowRuntime runtime;
    private final WideningRowSerializer rows;
    private final SequenceClock clock;
    private final StateAccessCounter counter;

    /**
     * @param runtime the flow's runtime, opened
     * @param rows the serializer of the flow's input rows, which copies them and widens rows
     *     restored from a narrower input
     */
    SnapshotPendingRows(
            MapState<String, List<RowData>> pending,
            FlowRuntime runtime,
            WideningRowSerializer rows,
            SequenceClock clock) {
        this.pending = pending;
        this.runtime = runtime;
        this.rows = rows;
        this.clock = clock;
        this.counter = runtime.stateAccesses();
    }

    /**
     * Keeps a copy of a row of snapshot {@code id}, at {@code time}; the snapshot's first row sets
     * its timer.
     *
     * @param refused whether the row was dead-lettered when it arrived (it only holds the key)
     */
    void add(byte[] id, RowData row, boolean refused, long time, TimerService timers)
            throws Exception {
        counter.valueReads++;
        List<RowData> waiting = widened(pending.get(CompleteSnapshots.key(id)));
        if (waiting == null) {
            waiting = new ArrayList<>(1);
            timers.registerEventTimeTimer(time);
        }
        RowData copy = rows.copy(row);
        if (refused) {
            copy.setRowKind(RowKind.UPDATE_BEFORE);
        }
        waiting.add(copy);
        counter.mapWrites++;
        pending.put(CompleteSnapshots.key(id), waiting);
    }

    /** The key's rows, by snapshot id in snapshot order (a read of the whole map). */
    TreeMap<byte[], List<RowData>> all() throws Exception {
        TreeMap<byte[], List<RowData>> waiting = new TreeMap<>(SnapshotId::compare);
        counter.iteratorSteps++; // opening the iterator costs a seek
        for (Map.Entry<String, List<RowData>> e : pending.entries()) {
            counter.iteratorSteps++;
            waiting.put(CompleteSnapshots.id(e.getKey()), widened(e.getValue()));
        }
        return waiting;
    }

    /**
     * Rows as the flow's input type has them now: a restore may hold rows of an input that has
     * since gained columns at its end (null in them); null stays null.
     */
    List<RowData> widened(List<RowData> rowsOfSnapshot) {
        if (rowsOfSnapshot != null) {
            rowsOfSnapshot.replaceAll(rows::widen);
        }
        return rowsOfSnapshot;
    }

    /** The time of a snapshot's rows (they share it). */
    long time(List<RowData> rowsOfSnapshot) {
        return SnapshotMarks.time(clock, rowsOfSnapshot.get(0));
    }

    /**
     * The key applies snapshot {@code id}, whose rows were these: they leave, and so does their
     * timer unless it is the one firing ({@code firing}), since it would only find nothing to do.
     */
    void applied(byte[] id, List<RowData> rowsOfSnapshot, long firing, TimerService timers)
            throws Exception {
        counter.mapWrites++;
        pending.remove(CompleteSnapshots.key(id));
        long time = time(rowsOfSnapshot);
        if (time != firing) {
            timers.deleteEventTimeTimer(time);
        }
    }

    /**
     * Snapshot {@code id} can never apply: its rows leave, to the late events (those refused on
     * arrival were dead letters already).
     */
    void drop(byte[] id, List<RowData> rowsOfSnapshot, FlowRuntime.Effects fx) throws Exception {
        counter.mapWrites++;
        pending.remove(CompleteSnapshots.key(id));
        for (RowData r : rowsOfSnapshot) {
            if (r.getRowKind() != RowKind.UPDATE_BEFORE) {
                late(r, fx);
            }
        }
    }

    /** Sends a row whose snapshot is at or below one already complete to the late events. */
    void late(RowData row, FlowRuntime.Effects fx) {
        runtime.metrics().droppedLate.inc();
        fx.output(
                SideOutputs.LATE_EVENTS,
                runtime.decoder()
                        .letterOf(
                                row,
                                DeadLetter.SNAPSHOT_OUT_OF_ORDER,
                                "the row's snapshot is at or below one already complete: its"
                                        + " split delivered it after a later snapshot's row or end"
                                        + " row; nothing else changes"));
    }
}
