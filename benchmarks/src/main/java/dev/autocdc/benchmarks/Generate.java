package dev.autocdc.benchmarks;

import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.Collector;

/**
 * The event of an index, as the engine's input row; nothing after the workload (it idles until
 * stopped).
 */
final class Generate extends RichFlatMapFunction<Long, RowData> {
    private final Workload w;
    private final boolean bitemporal;
    private final boolean snapshotEnds;

    /**
     * @param snapshotEnds W6: whether the rows have the snapshot flow's end column (else end rows
     *     are left out)
     */
    Generate(Workload w, boolean bitemporal, boolean snapshotEnds) {
        this.w = w;
        this.bitemporal = bitemporal;
        this.snapshotEnds = snapshotEnds;
    }

    @Override
    public void flatMap(Long index, Collector<RowData> out) throws Exception {
        long i = index;
        if (i >= w.events) {
            Thread.sleep(1); // past the workload: wait for the stop without burning a core
            return;
        }
        if (i == 0) {
            Progress.start = System.nanoTime();
        } else if (i == w.events / 5) {
            Progress.allocatedAtFifth = Progress.operatorAllocatedBytes();
            Progress.cpuAtFifth = Progress.operatorCpuNanos();
            Progress.fifth = System.nanoTime();
        } else if (i == w.events - w.events / 5) {
            Progress.fourFifths = System.nanoTime();
        }
        if (w.name.equals("W6")) {
            RowData row = w.snapshotRow(i, snapshotEnds);
            if (row != null) {
                out.collect(row);
            }
        } else {
            out.collect(w.row(i, bitemporal));
        }
        if (i == w.events - 1) {
            Progress.end = System.nanoTime();
            Progress.allocatedAtEnd = Progress.operatorAllocatedBytes();
            Progress.cpuAtEnd = Progress.operatorCpuNanos();
        }
    }
}
