package dev.autocdc.operators.flink;

import dev.autocdc.operators.flink.spec.EngineSpec;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.table.data.RowData;

/**
 * The operator {@link AutoCdc#apply} runs {@link AutoCdcFunction} in: Flink's keyed process
 * operator, plus what a {@code KeyedProcessFunction} cannot reach: the function's write-back cache
 * ({@link EngineSpec#stateCache()}) gets the operator's key context and the TaskManager's
 * configuration (its budget's memory: {@code CacheBudget}) when it opens, and is flushed before
 * every checkpoint barrier (savepoints included) and at the end of input. The same function run by
 * {@code keyBy(...).process(function)} works without the cache.
 */
public final class AutoCdcOperator extends KeyedProcessOperator<Object, RowData, RowData> {
    private static final long serialVersionUID = 1L;

    private final AutoCdcFunction function;

    AutoCdcOperator(AutoCdcFunction function) {
        super(function);
        this.function = function;
    }

    @Override
    public void open() throws Exception {
        // before the function opens its states
        function.cacheUnder(
                this, getContainingTask().getEnvironment().getTaskManagerInfo().getConfiguration());
        super.open();
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        function.flushCache();
        super.prepareSnapshotPreBarrier(checkpointId);
    }

    @Override
    public void finish() throws Exception {
        function.flushCache();
        super.finish();
    }
}
