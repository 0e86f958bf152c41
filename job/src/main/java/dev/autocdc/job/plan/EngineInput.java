package dev.autocdc.job.plan;

import dev.autocdc.operators.flink.runtime.DeadLetter;
import dev.autocdc.operators.flink.runtime.EngineMetrics;
import dev.autocdc.operators.flink.runtime.InputCheck;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.conversion.DataStructureConverter;
import org.apache.flink.table.data.conversion.DataStructureConverters;
import org.apache.flink.table.types.DataType;
import org.apache.flink.types.Row;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Row (from the SQL source) to RowData (for the engine), keeping the row kind. When the input's
 * last column holds the record's bytes, it drops the column, so that the bytes never cross the
 * keyed exchange, and (given a check) refuses here what the engine would refuse by the row alone
 * ({@link InputCheck}), so that the dead letter carries the bytes. A refused row stops here, but in
 * a flow from snapshots, where it goes on marked ({@code ControlColumn.REFUSED}) to hold its key.
 * Its letters count in the flow's {@value EngineMetrics#DEAD_LETTERS}, in this operator's metric
 * group.
 */
final class EngineInput extends ProcessFunction<Row, RowData> {
    private final String flow;
    private final DataType type;
    private final boolean carriesBytes;
    private final InputCheck check;
    private final int refusedField;
    private final OutputTag<DeadLetter> refused;
    private transient DataStructureConverter<Object, Object> converter;
    private transient Counter deadLetters;

    /**
     * @param flow the flow's name, for its metrics
     * @param carriesBytes whether the last column holds the record's bytes
     * @param check null: the engine refuses bad rows itself (no bytes in their letters)
     * @param refusedField where a refused row that goes on is marked; -1: it stops here
     */
    EngineInput(
            String flow,
            DataType type,
            boolean carriesBytes,
            InputCheck check,
            int refusedField,
            OutputTag<DeadLetter> refused) {
        this.flow = flow;
        this.type = type;
        this.carriesBytes = carriesBytes;
        this.check = check;
        this.refusedField = refusedField;
        this.refused = refused;
    }

    @Override
    public void open(OpenContext context) {
        converter = DataStructureConverters.getConverter(type);
        converter.open(getClass().getClassLoader());
        deadLetters = EngineMetrics.deadLetterCounter(getRuntimeContext().getMetricGroup(), flow);
    }

    @Override
    public void processElement(Row row, Context ctx, Collector<RowData> out) {
        GenericRowData data = (GenericRowData) converter.toInternal(row);
        data.setRowKind(row.getKind());
        if (!carriesBytes) {
            out.collect(data);
            return;
        }
        int n = data.getArity() - 1;
        GenericRowData engine = new GenericRowData(row.getKind(), n);
        for (int i = 0; i < n; i++) {
            engine.setField(i, data.getField(i));
        }
        DeadLetter letter = check == null ? null : check.check(engine);
        if (letter != null) {
            letter.raw = (byte[]) data.getField(n);
            deadLetters.inc(); // counted here: the engine does not letter a refused row again
            ctx.output(refused, letter);
            if (refusedField < 0) {
                return;
            }
            engine.setField(refusedField, StringData.fromString(letter.reason));
        }
        out.collect(engine);
    }
}
