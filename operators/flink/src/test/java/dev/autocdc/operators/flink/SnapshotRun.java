package dev.autocdc.operators.flink;

import dev.autocdc.operators.flink.OperatorRun.Backend;
import dev.autocdc.operators.flink.OperatorRun.Change;
import dev.autocdc.operators.flink.runtime.EventDecoder;
import dev.autocdc.operators.flink.runtime.SequenceClock;
import dev.autocdc.operators.flink.runtime.SideOutputs;
import dev.autocdc.operators.flink.snapshot.AutoCdcSnapshotFunction;
import dev.autocdc.operators.flink.snapshot.SnapshotApplyOperator;
import dev.autocdc.operators.flink.snapshot.SnapshotMarks;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.spec.OutputMode;
import dev.autocdc.operators.flink.spec.TypeMapping;
import dev.autocdc.operators.reference.SnapshotReference.SnapshotRow;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedBroadcastOperatorTestHarness;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.InstantiationUtil;

/**
 * {@link AutoCdcSnapshotFunction} in a harness with one instance: rows, complete snapshots (the
 * marks {@link SnapshotMarks} would announce) and watermarks fed by hand, the changelog
 * materialized and checked change by change. For tests.
 */
final class SnapshotRun implements AutoCloseable {

    final EngineSpec spec;
    final KeyedBroadcastOperatorTestHarness<Object, RowData, RowData, RowData> harness;
    final ChangelogTable table;
    final AutoCdcSnapshotFunction function;
    final SnapshotApplyOperator operator;
    private int drained;

    SnapshotRun(EngineSpec spec, Backend backend) throws Exception {
        this(spec, backend, null);
    }

    /** A run restored from {@code state} (a snapshot of another run's harness). */
    SnapshotRun(EngineSpec spec, Backend backend, OperatorSubtaskState state) throws Exception {
        this(spec, backend, state, new ChangelogTable(spec.targetPrimaryKey(), OutputMode.RETRACT));
    }

    /**
     * A run restored from {@code state} whose changes go on changing {@code table} (the table of
     * the run that took the snapshot, drained).
     */
    SnapshotRun(EngineSpec spec, Backend backend, OperatorSubtaskState state, ChangelogTable table)
            throws Exception {
        this.spec = spec;
        FlowKeySelector keys = new FlowKeySelector(spec);
        // as Flink ships it to a task: through Java serialization (transient fields start empty)
        function =
                InstantiationUtil.clone(
                        new AutoCdcSnapshotFunction(spec),
                        AutoCdcSnapshotFunction.class.getClassLoader());
        operator = new SnapshotApplyOperator(function, spec);
        harness =
                new KeyedBroadcastOperatorTestHarness<>(
                        operator, keys, keys.getProducedType(), 1, 1, 0);
        harness.setStateBackend(backend.create());
        harness.setup(new RowDataSerializer(spec.targetType()));
        if (state != null) {
            harness.initializeState(state);
        }
        harness.open();
        this.table = table;
    }

    RowData row(SnapshotRow r) {
        List<Object> values = new ArrayList<>();
        values.add(r.key());
        values.addAll(r.values());
        values.add(r.version());
        if (r.sys() != null) {
            values.add(r.sys());
        }
        return TruncateTest.OperatorRunRows.of(spec.inputType(), values.toArray());
    }

    /** The mark SnapshotMarks would announce for the row's snapshot. */
    RowData mark(SnapshotRow r) {
        RowData row = row(r);
        GenericRowData mark = new GenericRowData(6);
        mark.setField(SnapshotMarks.ROWS, 0L);
        mark.setField(SnapshotMarks.HELD, false);
        mark.setField(SnapshotMarks.ID, new EventDecoder(spec, null).snapshotId(row));
        mark.setField(SnapshotMarks.TIME, SnapshotMarks.time(SequenceClock.of(spec), row));
        mark.setField(SnapshotMarks.SEQUENCE, r.version());
        mark.setField(SnapshotMarks.SYSTEM_SEQUENCE, r.sys());
        return mark;
    }

    /** A checkpoint's state, taken as a task takes it (the cache flushed before the barrier). */
    OperatorSubtaskState snapshot(long checkpoint) throws Exception {
        harness.prepareSnapshotPreBarrier(checkpoint);
        return harness.snapshot(checkpoint, checkpoint);
    }

    void rows(List<SnapshotRow> rows) throws Exception {
        for (SnapshotRow r : rows) {
            harness.processElement(new StreamRecord<>(row(r)));
        }
    }

    void complete(RowData mark) throws Exception {
        harness.processBroadcastElement(new StreamRecord<>(mark));
    }

    void watermark(long time) throws Exception {
        harness.processBroadcastWatermark(time);
        harness.processWatermark(time);
    }

    /** Applies the output since the last call to the table, which checks every change. */
    void drain() {
        List<RowData> out = harness.extractOutputValues();
        List<Change> changes = new ArrayList<>();
        RowType target = spec.targetType();
        for (RowData r : out.subList(drained, out.size())) {
            Object[] values = new Object[target.getFieldCount()];
            for (int f = 0; f < values.length; f++) {
                LogicalType t = target.getTypeAt(f);
                values[f] =
                        TypeMapping.toJava(t, RowData.createFieldGetter(t, f).getFieldOrNull(r));
            }
            changes.add(new Change(r.getRowKind(), values));
        }
        drained = out.size();
        table.apply(changes);
    }

    int deadLetters() {
        var letters = harness.getSideOutput(SideOutputs.DEAD_LETTERS);
        return letters == null ? 0 : letters.size();
    }

    int lateEvents() {
        var late = harness.getSideOutput(SideOutputs.LATE_EVENTS);
        return late == null ? 0 : late.size();
    }

    @Override
    public void close() throws Exception {
        harness.close();
    }
}
