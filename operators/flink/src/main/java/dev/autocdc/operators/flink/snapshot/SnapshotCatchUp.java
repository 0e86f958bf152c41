package dev.autocdc.operators.flink.snapshot;

import dev.autocdc.operators.core.BitemporalSnapshotKey;
import dev.autocdc.operators.core.SnapshotId;
import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.runtime.FlowRuntime;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.state.StateAccessCounter;
import dev.autocdc.operators.flink.state.StateNames;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.streaming.api.TimerService;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.Collector;

/**
 * Catches the current key up: applies, in order, every snapshot after the key's last that is
 * complete and that the watermark has passed (a complete mark may arrive before the rows of its
 * snapshot on another channel, never after the watermark that passes it), drops the key's rows that
 * can never apply, keeps the key's {@link SnapshotProgress} in {@value StateNames#SNAPSHOT_APPLIED}
 * and re-arms the key's timers.
 *
 * <p>The timers of the snapshots it applies, set when their first rows came, would only find
 * nothing to do: they are deleted (each such visit would also iterate the key's waiting rows, and
 * on RocksDB an iteration over a key whose rows are gone steps over their tombstones and on to the
 * next key's rows, which at the end of a bounded input are all gone too).
 */
final class SnapshotCatchUp {
    private final FlowRuntime runtime;
    private final EngineSpec spec;
    private final boolean bitemporal;
    private final ValueState<RowData> applied;
    private final SnapshotPendingRows pending;
    private final SnapshotKeyRows keyRows;
    private final SnapshotRowsOfKey rowsOfKey;
    private final StateAccessCounter counter;
    private long restatedDeletes;

    /**
     * @param runtime the flow's runtime, opened
     * @param applied the key's progress, {@value StateNames#SNAPSHOT_APPLIED}
     */
    SnapshotCatchUp(
            FlowRuntime runtime,
            EngineSpec spec,
            ValueState<RowData> applied,
            SnapshotPendingRows pending,
            SnapshotKeyRows keyRows,
            SnapshotRowsOfKey rowsOfKey) {
        this.runtime = runtime;
        this.spec = spec;
        this.bitemporal = spec.flow().targetType() == TargetType.BITEMPORAL;
        this.applied = applied;
        this.pending = pending;
        this.keyRows = keyRows;
        this.rowsOfKey = rowsOfKey;
        this.counter = runtime.stateAccesses();
    }

    long restatedDeletes() {
        return restatedDeletes;
    }

    /** The key's progress as stored; null: none. */
    SnapshotProgress stored() throws Exception {
        counter.valueReads++;
        RowData state = applied.value();
        return state == null ? null : SnapshotProgress.read(state, spec);
    }

    /**
     * Catches the key up through {@code watermark}.
     *
     * @param stored the key's progress as stored, read by the caller ({@link #stored})
     * @param firing the time of the timer that runs it; MIN_VALUE in a scan
     */
    void run(
            CompleteSnapshots complete,
            SnapshotProgress stored,
            long firing,
            long watermark,
            FlowRuntime.Effects fx,
            Collector<RowData> out)
            throws Exception {
        WaitingRows read = pending.read();
        TreeMap<byte[], List<RowData>> waiting = read.edit();
        SnapshotProgress progress;
        if (stored != null) {
            progress = stored;
        } else if (!waiting.isEmpty()) {
            progress =
                    SnapshotProgress.initial(
                            bitemporal, keyRows.keyOf(waiting.firstEntry().getValue().get(0)));
        } else {
            return; // nothing of this key is left
        }
        byte[] last = applyPassed(complete, waiting, progress, firing, watermark, fx, out);
        Long earliest = dropUnappliable(complete, waiting, last, watermark, fx);
        WaitingRows left = pending.keep(read, waiting);
        progress.cursor = last;
        boolean present = progress.present();
        if (last != null && (present || bitemporal || earliest != null)) {
            counter.valueWrites++;
            applied.update(progress.toRow());
        } else if (last != null && stored != null) {
            counter.valueWrites++;
            applied.clear(); // an absent key without rows: nothing to remember (SCD)
        }
        TimerService timers = fx.timerService();
        if (earliest != null) {
            timers.registerEventTimeTimer(earliest);
        }
        left.armed = Long.MIN_VALUE;
        if (present && watermark < Long.MAX_VALUE) {
            timers.registerEventTimeTimer(watermark + 1); // to find out at once if it vanishes
            left.armed = watermark + 1;
        }
    }

    /**
     * Applies the complete snapshots the watermark passed after the key's last, in order, taking
     * their rows from {@code waiting}; returns the last one applied (the key's last when none).
     */
    private byte[] applyPassed(
            CompleteSnapshots complete,
            TreeMap<byte[], List<RowData>> waiting,
            SnapshotProgress progress,
            long firing,
            long watermark,
            FlowRuntime.Effects fx,
            Collector<RowData> out)
            throws Exception {
        byte[] last = progress.cursor;
        byte[] next = complete.passed(complete.after(last), watermark);
        while (next != null) {
            if (!(bitemporal ? progress.bitemporal.everPresent() : progress.present())) {
                // a key never present (SCD: absent) changes only at its next row of a passed,
                // complete snapshot
                next = nextWithRows(complete, waiting, last, watermark);
                if (next == null) {
                    break;
                }
            }
            List<RowData> rowsOfSnapshot = waiting.remove(next);
            if (rowsOfSnapshot != null) {
                pending.applied(rowsOfSnapshot, firing, fx.timerService());
            }
            apply(complete, next, rowsOfSnapshot, progress, fx, out);
            last = next;
            next = complete.passed(complete.after(next), watermark);
        }
        return last;
    }

    /**
     * Drops the rows left in {@code waiting} that can never apply (out of it); returns the earliest
     * time of those still to come (null: none).
     */
    private Long dropUnappliable(
            CompleteSnapshots complete,
            TreeMap<byte[], List<RowData>> waiting,
            byte[] last,
            long watermark,
            FlowRuntime.Effects fx)
            throws Exception {
        Long earliest = null;
        for (Iterator<Map.Entry<byte[], List<RowData>>> it = waiting.entrySet().iterator();
                it.hasNext(); ) {
            Map.Entry<byte[], List<RowData>> e = it.next();
            long time = pending.time(e.getValue());
            boolean behind = last != null && SnapshotId.compare(e.getKey(), last) <= 0;
            if (behind || (time <= watermark && !complete.contains(e.getKey()))) {
                // its snapshot was applied before it came (a split broke the order, a replay
                // after a restore), or was never announced in time: it can never apply
                it.remove();
                pending.drop(e.getValue(), fx);
            } else if (time > watermark) {
                earliest = earliest == null ? time : Math.min(earliest, time);
            }
        }
        return earliest;
    }

    /** The key's next snapshot with rows after {@code last}, if complete and passed; else null. */
    private static byte[] nextWithRows(
            CompleteSnapshots complete,
            TreeMap<byte[], List<RowData>> waiting,
            byte[] last,
            long watermark) {
        for (byte[] w : (last == null ? waiting : waiting.tailMap(last, false)).keySet()) {
            if (complete.contains(w)) {
                return complete.passed(w, watermark);
            }
        }
        return null;
    }

    /** Applies one complete snapshot to the key: its rows (null: none). */
    private void apply(
            CompleteSnapshots complete,
            byte[] id,
            List<RowData> rowsOfSnapshot,
            SnapshotProgress progress,
            FlowRuntime.Effects fx,
            Collector<RowData> out)
            throws Exception {
        RowData upsert = rowsOfSnapshot == null ? null : rowsOfKey.upsertOf(rowsOfSnapshot, fx);
        if (bitemporal) {
            BitemporalSnapshotKey.Rows rows =
                    rowsOfSnapshot == null
                            ? BitemporalSnapshotKey.Rows.NONE
                            : upsert == null
                                    ? BitemporalSnapshotKey.Rows.HELD
                                    : BitemporalSnapshotKey.Rows.UPSERT;
            progress.bitemporal.apply(
                    id,
                    rows,
                    complete.index(),
                    w -> {
                        if (!w.delete()) {
                            return runtime.apply(upsert, fx, out, null);
                        }
                        RowData delete = keyRows.delete(progress.key, complete.mark(w.at()));
                        if (SnapshotId.compare(w.at(), id) == 0) {
                            return runtime.apply(delete, fx, out, null);
                        }
                        restatedDeletes++;
                        if (runtime.applyDerived(delete, fx, out)) {
                            return true;
                        }
                        // the history the row would change left state: the row is late
                        runtime.lateBeforeRetainedHistory(upsert, fx);
                        return false;
                    });
        } else if (rowsOfSnapshot == null) {
            if (progress.present()) {
                runtime.apply(keyRows.delete(progress.key, complete.mark(id)), fx, out, null);
                progress.present(false);
            }
        } else if (upsert != null) {
            runtime.apply(upsert, fx, out, null);
            progress.present(true);
        }
    }
}
