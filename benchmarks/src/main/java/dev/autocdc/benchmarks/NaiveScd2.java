package dev.autocdc.benchmarks;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple5;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.Collector;

/** What users write without us: every version of the key in one ListState, rewritten per event. */
final class NaiveScd2 extends KeyedProcessFunction<Long, RowData, Long> {
    private static final Long OPEN = Long.MIN_VALUE; // tuples take no null
    private transient ListState<Tuple5<Long, Long, Integer, String, Long>> versions;

    @Override
    public void open(OpenContext context) {
        versions =
                getRuntimeContext()
                        .getListState(
                                new ListStateDescriptor<>(
                                        "versions",
                                        Types.TUPLE(
                                                Types.LONG,
                                                Types.LONG,
                                                Types.INT,
                                                Types.STRING,
                                                Types.LONG)));
    }

    @Override
    public void processElement(RowData row, Context ctx, Collector<Long> out) throws Exception {
        List<Tuple5<Long, Long, Integer, String, Long>> all = new ArrayList<>();
        for (Tuple5<Long, Long, Integer, String, Long> v : versions.get()) {
            all.add(v);
        }
        long seq = row.getLong(4);
        if (!all.isEmpty() && all.get(all.size() - 1).f1 == OPEN) {
            all.get(all.size() - 1).f1 = seq; // close the open version
        }
        if (!row.getBoolean(5)) {
            all.add(
                    Tuple5.of(
                            seq, OPEN, row.getInt(1), row.getString(2).toString(), row.getLong(3)));
        }
        versions.update(all);
        out.collect(seq);
    }
}
