package dev.autocdc.operators.flink.snapshot;

import dev.autocdc.operators.core.ChangeEvent;
import dev.autocdc.operators.core.SnapshotId;
import dev.autocdc.operators.flink.runtime.DeadLetter;
import dev.autocdc.operators.flink.runtime.EngineMetrics;
import dev.autocdc.operators.flink.runtime.EventDecoder;
import dev.autocdc.operators.flink.runtime.FlowRuntime;
import dev.autocdc.operators.flink.runtime.SideOutputs;
import dev.autocdc.operators.flink.spec.EngineSpec;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;

/**
 * What a row arriving at a flow from snapshots is (semantics §10, §11), counted as it arrives: a
 * row to keep waiting under its snapshot; a row refused on arrival whose key and snapshot can be
 * read, kept only to hold its key at that snapshot; or nothing to keep: a retraction of the input
 * skipped, a retracted or unreadable end row, or a refused row without a key or snapshot, each
 * lettered here or by the decoder before.
 */
final class SnapshotIntake {
    /**
     * A row to keep waiting.
     *
     * @param id its snapshot's id
     * @param refused whether it was refused on arrival (it only holds its key)
     */
    record Kept(byte[] id, boolean refused) {}

    private final FlowRuntime runtime;
    private final EngineSpec spec;
    private final SnapshotKeyRows keyRows;

    SnapshotIntake(FlowRuntime runtime, EngineSpec spec, SnapshotKeyRows keyRows) {
        this.runtime = runtime;
        this.spec = spec;
        this.keyRows = keyRows;
    }

    /** The arriving {@code row} as a row to keep, or null when nothing is kept. */
    Kept read(RowData row, FlowRuntime.Effects fx) {
        EngineMetrics metrics = runtime.metrics();
        metrics.input.inc(); // as it arrives: what it is applied as may be a derived delete too
        if (row.getRowKind() == RowKind.UPDATE_BEFORE) {
            metrics.skippedUpdateBefore.inc();
            return null;
        }
        EventDecoder decoder = runtime.decoder();
        if (row.getRowKind() == RowKind.DELETE || SnapshotMarks.isEnd(spec, row)) {
            metrics.deadLettered.inc();
            fx.output(
                    SideOutputs.DEAD_LETTERS,
                    decoder.letterOf(
                            row,
                            DeadLetter.NOT_A_SNAPSHOT_ROW,
                            row.getRowKind() == RowKind.DELETE
                                    ? "a snapshot's rows are inserts; the source retracted a row"
                                    : "an end row whose sequences cannot be read"));
            return null;
        }
        boolean before = decoder.refusedBefore(row); // its letter is out, with its bytes
        DeadLetter refused = before ? null : runtime.refusal(row);
        if (before || refused != null) {
            if (refused != null) {
                metrics.deadLettered.inc();
                fx.output(SideOutputs.DEAD_LETTERS, refused);
            }
            byte[] id = keyRows.hasKey(row) ? decoder.snapshotId(row) : null;
            return id == null ? null : new Kept(id, true); // null: no key or snapshot to hold
        }
        ChangeEvent event = runtime.decode(row, fx);
        // null: a value that does not convert, dead-lettered
        return event == null ? null : new Kept(SnapshotId.of(event), false);
    }
}
