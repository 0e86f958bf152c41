package dev.autocdc.benchmarks;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.table.data.RowData;

/** Notes when the last output row passed (the snapshot flow's end). */
final class LastOutput implements MapFunction<RowData, RowData> {
    @Override
    public RowData map(RowData row) {
        Progress.lastOutput = System.nanoTime();
        return row;
    }
}
