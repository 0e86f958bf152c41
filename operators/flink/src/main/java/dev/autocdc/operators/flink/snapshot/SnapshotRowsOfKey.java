package dev.autocdc.operators.flink.snapshot;

import dev.autocdc.operators.flink.runtime.DeadLetter;
import dev.autocdc.operators.flink.runtime.FlowRuntime;
import dev.autocdc.operators.flink.runtime.SideOutputs;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;

/**
 * What one key's rows in one snapshot amount to (semantics §10): rows equal on the target's columns
 * are one row, to upsert. Different rows, or a row refused on arrival (kept with row kind
 * UPDATE_BEFORE, which no snapshot row has) next to valid ones, <em>hold</em> the key as it was:
 * every valid row then goes to the dead letters ({@value DeadLetter#DUPLICATE_KEY_IN_SNAPSHOT})
 * too, so that none is lost.
 */
final class SnapshotRowsOfKey {
    private final FlowRuntime runtime;

    SnapshotRowsOfKey(FlowRuntime runtime) {
        this.runtime = runtime;
    }

    /** The row to upsert, or null when the rows hold the key. */
    RowData upsertOf(List<RowData> rowsOfKey, FlowRuntime.Effects fx) {
        List<RowData> valid = new ArrayList<>(rowsOfKey.size());
        for (RowData r : rowsOfKey) {
            if (r.getRowKind() != RowKind.UPDATE_BEFORE) {
                valid.add(r);
            }
        }
        if (valid.isEmpty()) {
            return null;
        }
        boolean conflict = valid.size() < rowsOfKey.size();
        if (!conflict && valid.size() > 1) {
            Object[] first = runtime.decode(valid.get(0), fx).row();
            for (RowData r : valid.subList(1, valid.size())) {
                conflict |= !sameRow(first, runtime.decode(r, fx).row());
            }
        }
        if (!conflict) {
            return valid.get(0);
        }
        for (RowData r : valid) {
            runtime.metrics().deadLettered.inc();
            fx.output(
                    SideOutputs.DEAD_LETTERS,
                    runtime.decoder()
                            .letterOf(
                                    r,
                                    DeadLetter.DUPLICATE_KEY_IN_SNAPSHOT,
                                    "the key's "
                                            + rowsOfKey.size()
                                            + " rows in one snapshot differ (or one was refused"
                                            + " when it arrived); all are dead letters and the"
                                            + " key stays as it was"));
        }
        return null;
    }

    /**
     * Copies of a key's rows in a snapshot the safety valve holds, to the late events ({@value
     * DeadLetter#SNAPSHOT_HELD}, counted): the rows themselves stay waiting.
     *
     * @param rows the snapshot's row count, for the message
     */
    void heldCopies(List<RowData> rowsOfKey, long rows, Consumer<DeadLetter> late) {
        for (RowData r : rowsOfKey) {
            if (r.getRowKind() != RowKind.UPDATE_BEFORE) {
                runtime.metrics().droppedLate.inc();
                late.accept(
                        runtime.decoder()
                                .letterOf(
                                        r,
                                        DeadLetter.SNAPSHOT_HELD,
                                        "the snapshot has "
                                                + rows
                                                + " rows, too few against the last complete one:"
                                                + " it and every later snapshot wait; raise the"
                                                + " flow's snapshot-hold-threshold and restart from"
                                                + " a savepoint to apply it"));
            }
        }
    }

    /** Rows equal on the target's columns, as IS NOT DISTINCT FROM: -0.0 is 0.0. */
    private static boolean sameRow(Object[] a, Object[] b) {
        for (int i = 0; i < a.length; i++) {
            Object x = a[i];
            Object y = b[i];
            boolean same =
                    x instanceof Double dx && y instanceof Double dy
                            ? dx.doubleValue() == dy.doubleValue() || dx.isNaN() && dy.isNaN()
                            : x instanceof Float fx && y instanceof Float fy
                                    ? fx.floatValue() == fy.floatValue() || fx.isNaN() && fy.isNaN()
                                    : Arrays.deepEquals(new Object[] {x}, new Object[] {y});
            if (!same) {
                return false;
            }
        }
        return true;
    }
}
