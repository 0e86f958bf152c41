package dev.autocdc.operators.flink;

import dev.autocdc.operators.core.TargetChange;
import java.util.List;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;

/**
 * Turns the engine's target changes into the target's changelog (SPEC §8): an insert is {@code +I},
 * an update {@code -U} then {@code +U} (the {@code +U} alone in {@link OutputMode#UPSERT}), a
 * delete {@code -D}; each retraction carries exactly the row it retracts. Counts upserted and
 * deleted rows.
 */
final class ChangelogEmitter {
    private final OutputMode mode;
    private final LogicalType[] types;
    private final EngineMetrics metrics;

    ChangelogEmitter(EngineSpec spec, EngineMetrics metrics) {
        this.mode = spec.outputMode();
        this.types = spec.targetType().getChildren().toArray(new LogicalType[0]);
        this.metrics = metrics;
    }

    void emit(List<TargetChange> changes, Collector<RowData> out) {
        for (TargetChange c : changes) {
            switch (c.kind()) {
                case INSERT:
                    out.collect(row(RowKind.INSERT, c.after()));
                    metrics.upserted.inc();
                    break;
                case UPDATE:
                    if (mode == OutputMode.RETRACT) {
                        out.collect(row(RowKind.UPDATE_BEFORE, c.before()));
                    }
                    out.collect(row(RowKind.UPDATE_AFTER, c.after()));
                    metrics.upserted.inc();
                    break;
                default:
                    out.collect(row(RowKind.DELETE, c.before()));
                    metrics.deleted.inc();
            }
        }
    }

    private RowData row(RowKind kind, Object[] values) {
        GenericRowData row = new GenericRowData(kind, values.length);
        for (int i = 0; i < values.length; i++) {
            row.setField(i, TypeMapping.toInternal(types[i], values[i]));
        }
        return row;
    }
}
