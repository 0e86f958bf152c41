package dev.autocdc.operators.flink;

import dev.autocdc.operators.flink.runtime.DeadLetter;
import dev.autocdc.operators.flink.runtime.EngineMetrics;
import dev.autocdc.operators.flink.runtime.FlowRuntime;
import dev.autocdc.operators.flink.runtime.FlowStateCache;
import dev.autocdc.operators.flink.runtime.SideOutputs;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.state.CachingStateAccess;
import dev.autocdc.operators.flink.state.KeyedStateAccess;
import dev.autocdc.operators.flink.state.StateAccessCounter;
import dev.autocdc.operators.flink.state.StateNames;
import java.io.IOException;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.TimerService;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.operators.KeyContext;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * AUTO CDC as a keyed Flink function: applies each event of a key (see {@link EngineSpec} for the
 * input layout; key the stream with {@link FlowKeySelector}) to the key's history in keyed state
 * and emits the target's changelog (semantics §8): {@code +I}, {@code -U}/{@code +U} (or {@code +U}
 * alone in upsert mode) and {@code -D}, each retraction carrying exactly the row it retracts.
 *
 * <p>Guarantees: the materialized changelog equals semantics §3-5 for the events processed so far,
 * in any arrival order, on the RocksDB and the heap backends, across checkpoints and restores
 * (state is only in Flink keyed state, with explicit serializers). Invalid events (semantics §11:
 * null key, null in a sequence, bad COLUMNS TO UPDATE, values that do not convert) go to {@link
 * SideOutputs#DEAD_LETTERS} with a reason code and are counted; they never throw.
 *
 * <p>State per key: {@link StateNames} names each state (the names are part of the savepoint
 * format; the layout is in docs/state.md).
 *
 * <p>APPLY AS TRUNCATE WHEN needs every key: flows with truncates run as {@link
 * AutoCdcTruncateFunction} ({@link AutoCdc#apply} chooses); a truncate reaching this function is
 * dead-lettered ({@link DeadLetter#UNSUPPORTED_TRUNCATE}).
 */
public class AutoCdcFunction extends KeyedProcessFunction<Object, RowData, RowData>
        implements CheckpointedFunction {
    private static final long serialVersionUID = 1L;

    private final FlowRuntime runtime;

    /** The effects over the contexts Flink last handed for an element and for a timer. */
    private transient Context elementContext;

    private transient FlowRuntime.Effects elementEffects;
    private transient Context timerContext;
    private transient FlowRuntime.Effects timerEffects;

    /**
     * The write-back cache its operator set up; null: none (run without {@link AutoCdcOperator}).
     */
    private transient FlowStateCache cache;

    public AutoCdcFunction(EngineSpec spec) {
        this.runtime = new FlowRuntime(spec);
    }

    /**
     * Writes the recent entries of history targets in their previous layout (tests of the
     * migration).
     */
    AutoCdcFunction(EngineSpec spec, boolean previousRecentLayout) {
        this.runtime = new FlowRuntime(spec, previousRecentLayout, true);
    }

    public EngineSpec spec() {
        return runtime.spec();
    }

    /** State accesses so far (for tests and benchmarks). */
    public StateAccessCounter stateAccesses() {
        return runtime.stateAccesses();
    }

    /** The flow's metrics (for tests). */
    EngineMetrics metrics() {
        return runtime.metrics();
    }

    /** Whether state values are read widened to added columns (for tests). */
    boolean widensState() {
        return runtime.widensState();
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        runtime.initializeShape(context);
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) {
        // the shape's operator state is written once, in initializeState
    }

    @Override
    public void open(OpenContext openContext) throws Exception {
        KeyedStateAccess states = KeyedStateAccess.of(getRuntimeContext());
        runtime.open(cache == null ? states : cache.open(states, runtime.spec()));
    }

    /**
     * Lets the function keep a write-back cache of its hot states under {@code operator}'s keys,
     * within the budget {@code taskManager}'s memory gives it ({@link CacheBudget#ofTask}) unless
     * the spec sets one; call before {@link #open}. The operator must then call {@link
     * #flushCache()} before each snapshot of keyed state ({@link AutoCdcOperator} does).
     */
    void cacheUnder(KeyContext operator, Configuration taskManager) {
        this.cache = new FlowStateCache(operator, taskManager);
    }

    /** The write-back cache of hot state; null when none (for tests). */
    CachingStateAccess stateCache() {
        return cache == null ? null : cache.cache();
    }

    /** Writes the write-back cache's changes to keyed state (nothing without a cache). */
    void flushCache() throws IOException {
        if (cache != null) {
            cache.flush();
        }
    }

    @Override
    public void processElement(RowData input, Context ctx, Collector<RowData> out)
            throws Exception {
        if (ctx != elementContext) { // Flink reuses one context for elements: built once
            elementEffects = effectsOver(ctx);
            elementContext = ctx;
        }
        runtime.process(input, elementEffects, out, null);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<RowData> out)
            throws Exception {
        if (ctx != timerContext) { // and one for timers
            timerEffects = effectsOver(ctx);
            timerContext = ctx;
        }
        runtime.onTimer(timestamp, ctx.getCurrentKey(), timerEffects);
    }

    private static FlowRuntime.Effects effectsOver(Context ctx) {
        return new FlowRuntime.Effects() {
            @Override
            public TimerService timerService() {
                return ctx.timerService();
            }

            @Override
            public <X> void output(OutputTag<X> tag, X value) {
                ctx.output(tag, value);
            }
        };
    }
}
