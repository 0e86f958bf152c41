package dev.autocdc.benchmarks;

import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.table.data.RowData;

/** W6's watermark: just below a snapshot while its rows come, at it after its end row. */
final class SnapshotWatermarks implements WatermarkGenerator<RowData> {
    private long last = Long.MIN_VALUE;

    @Override
    public void onEvent(RowData row, long timestamp, WatermarkOutput output) {
        long wm = row.getBoolean(5) ? row.getLong(4) : row.getLong(4) - 1;
        if (wm > last) {
            last = wm;
            output.emitWatermark(new Watermark(wm));
        }
    }

    @Override
    public void onPeriodicEmit(WatermarkOutput output) {}
}
