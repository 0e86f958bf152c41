package dev.autocdc.operators.flink.snapshot;

import dev.autocdc.operators.flink.runtime.DeadLetter;
import dev.autocdc.operators.flink.runtime.FlowRuntime;
import dev.autocdc.operators.flink.runtime.SequenceClock;
import dev.autocdc.operators.flink.runtime.SideOutputs;
import dev.autocdc.operators.flink.state.StateAccessCounter;
import dev.autocdc.operators.flink.state.StateNames;
import dev.autocdc.operators.flink.state.WideningRowSerializer;
import dev.autocdc.operators.flink.state.WriteBackCache;
import java.io.IOException;
import java.util.List;
import java.util.TreeMap;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.streaming.api.TimerService;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;

/**
 * The current key's rows of snapshots it has not applied, in the keyed map {@value
 * StateNames#SNAPSHOT_PENDING}: snapshot id (as {@link CompleteSnapshots#key}) to the key's rows in
 * it, as they arrived, read and written as one value per key ({@link WaitingRows}, through {@link
 * WaitingRowsState}, which the flow's write-back cache may keep). A row that was dead-lettered when
 * it arrived but whose key and sequences could be read is kept with row kind UPDATE_BEFORE, which
 * no snapshot row has, and only holds the key's state at that snapshot. The first row of a snapshot
 * sets an event-time timer at the snapshot's time ({@link SnapshotMarks#time}), unless the key is
 * known to have one at or before it ({@link WaitingRows#armed}); rows leave when their snapshot is
 * applied or when it can never apply, then to the late events ({@value
 * DeadLetter#SNAPSHOT_OUT_OF_ORDER}). Every read and write of the value is counted.
 */
final class SnapshotPendingRows {
    private final WaitingRowsState state;
    private final WriteBackCache<WaitingRows> cache;
    private final ValueState<WaitingRows> pending;
    private final FlowRuntime runtime;
    private final WideningRowSerializer rows;
    private final SequenceClock clock;
    private final StateAccessCounter counter;

    /**
     * @param state the key's waiting rows as one value
     * @param cache a write-back cache in front of {@code state}; null: none
     * @param runtime the flow's runtime, opened
     * @param rows the serializer of the flow's input rows, which copies them and widens rows
     *     restored from a narrower input
     */
    SnapshotPendingRows(
            WaitingRowsState state,
            WriteBackCache<WaitingRows> cache,
            FlowRuntime runtime,
            WideningRowSerializer rows,
            SequenceClock clock) {
        this.state = state;
        this.cache = cache;
        this.pending = cache == null ? state : cache;
        this.runtime = runtime;
        this.rows = rows;
        this.clock = clock;
        this.counter = runtime.stateAccesses();
    }

    /**
     * Keeps a copy of a row of snapshot {@code id}, at {@code time}; the snapshot's first row sets
     * its timer (see the class comment). A key the cache holds changes there; any other reads and
     * writes that snapshot's entry alone (a point read, not a visit of the key's entries).
     *
     * @param refused whether the row was dead-lettered when it arrived (it only holds the key)
     */
    void add(byte[] id, RowData row, boolean refused, long time, TimerService timers)
            throws Exception {
        RowData copy = rows.copy(row);
        if (refused) {
            copy.setRowKind(RowKind.UPDATE_BEFORE);
        }
        counter.valueReads++;
        if (cache != null && cache.holdsCurrentKey()) {
            WaitingRows waiting = cache.value();
            if (waiting.rows(id) == null
                    && (waiting.armed == Long.MIN_VALUE || waiting.armed > time)) {
                timers.registerEventTimeTimer(time);
            }
            write(waiting.with(id, copy));
            return;
        }
        List<RowData> before = state.rowsOf(id);
        if (before == null) {
            timers.registerEventTimeTimer(time);
        }
        counter.valueWrites++;
        state.put(id, WaitingRows.appended(before, copy));
    }

    /** The key's waiting rows. */
    WaitingRows read() throws IOException {
        counter.valueReads++;
        return pending.value();
    }

    /**
     * Keeps what is {@code left} of the rows {@code read} ({@link WaitingRows#edit}) after a
     * catch-up took some snapshots out (nothing written if none did); returns the value kept.
     */
    WaitingRows keep(WaitingRows read, TreeMap<byte[], List<RowData>> left) throws IOException {
        if (left.size() == read.snapshots()) {
            return read;
        }
        WaitingRows kept = read.remaining(left);
        write(kept);
        return kept;
    }

    private void write(WaitingRows waiting) throws IOException {
        counter.valueWrites++;
        pending.update(waiting);
    }

    /** The time of a snapshot's rows (they share it). */
    long time(List<RowData> rowsOfSnapshot) {
        return SnapshotMarks.time(clock, rowsOfSnapshot.get(0));
    }

    /**
     * The key applies a snapshot whose rows were these (the caller took them out of its waiting
     * rows): their timer leaves unless it is the one firing ({@code firing}), since it would only
     * find nothing to do.
     */
    void applied(List<RowData> rowsOfSnapshot, long firing, TimerService timers) {
        long time = time(rowsOfSnapshot);
        if (time != firing) {
            timers.deleteEventTimeTimer(time);
        }
    }

    /**
     * A snapshot that can never apply: its rows (the caller took them out of its waiting rows) go
     * to the late events, but for those refused on arrival, dead letters already.
     */
    void drop(List<RowData> rowsOfSnapshot, FlowRuntime.Effects fx) {
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
