package dev.autocdc.operators.flink.runtime;

import dev.autocdc.operators.core.TargetChange;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.spec.OutputMode;
import dev.autocdc.operators.flink.spec.TypeMapping;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.writer.BinaryRowWriter;
import org.apache.flink.table.data.writer.BinaryWriter;
import org.apache.flink.table.runtime.typeutils.InternalSerializers;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;

/**
 * Turns the engine's target changes into the target's changelog (semantics §8): an insert is {@code
 * +I}, an update {@code -U} then {@code +U} (the {@code +U} alone in {@link OutputMode#UPSERT}), a
 * delete {@code -D}; each retraction carries exactly the row it retracts. Counts upserted and
 * deleted rows.
 *
 * <p>Two ways to hand rows over, chosen by the host:
 *
 * <ul>
 *   <li><b>One reused binary row</b> (the Flink operators): every row is written into the same
 *       {@link BinaryRowData}, which Flink copies or serializes as it is (a memory copy) before the
 *       next one is written. This is Flink's contract for an operator's output: without object
 *       reuse the chain copies each record and the network serializes it; with {@code
 *       pipeline.object-reuse} a downstream operator must not keep a record past its call. The
 *       engine allocates nothing for a row but its strings' bytes.
 *   <li><b>A new {@link GenericRowData} per row</b>, for a host whose collector may keep what it
 *       gets ({@link AutoCdcProcessor}).
 * </ul>
 */
final class ChangelogEmitter {
    private final OutputMode mode;
    private final LogicalType[] types;
    private final EngineMetrics metrics;

    /** The reused row and its writer; null when every row is new. */
    private final BinaryRowData reused;

    private final BinaryRowWriter writer;
    private final TypeSerializer<?>[] serializers;

    /**
     * @param reuseRow whether rows are written into one reused binary row (the collector copies or
     *     serializes each before the next); else each is a new {@link GenericRowData}
     */
    ChangelogEmitter(EngineSpec spec, EngineMetrics metrics, boolean reuseRow) {
        this.mode = spec.outputMode();
        this.types = spec.targetType().getChildren().toArray(new LogicalType[0]);
        this.metrics = metrics;
        if (reuseRow) {
            reused = new BinaryRowData(types.length);
            writer = new BinaryRowWriter(reused);
            serializers = new TypeSerializer<?>[types.length];
            for (int i = 0; i < types.length; i++) {
                serializers[i] = InternalSerializers.create(types[i]);
            }
        } else {
            reused = null;
            writer = null;
            serializers = null;
        }
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

    /**
     * The target row of {@code values}; a shorter row (stored before columns were added) has nulls
     * after its end, as the state codec reads it.
     */
    private RowData row(RowKind kind, Object[] stored) {
        Object[] values =
                stored.length < types.length ? Arrays.copyOf(stored, types.length) : stored;
        if (reused == null) {
            GenericRowData row = new GenericRowData(kind, types.length);
            for (int i = 0; i < types.length; i++) {
                row.setField(i, TypeMapping.toInternal(types[i], values[i]));
            }
            return row;
        }
        writer.reset();
        for (int i = 0; i < types.length; i++) {
            if (values[i] == null) {
                // as RowDataSerializer.toBinaryRow writes nulls: the bytes a generic row of the
                // same values has after a network hop
                writer.setNullAt(i);
            } else if (values[i] instanceof String s) {
                // CHAR and VARCHAR: the layout writeString gives, without the string object it
                // would materialize first
                writer.writeBinary(i, s.getBytes(StandardCharsets.UTF_8));
            } else {
                BinaryWriter.write(
                        writer,
                        i,
                        TypeMapping.toInternal(types[i], values[i]),
                        types[i],
                        serializers[i]);
            }
        }
        writer.complete();
        reused.setRowKind(kind);
        return reused;
    }
}
