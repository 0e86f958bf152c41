package dev.autocdc.operators.flink;

import java.io.IOException;
import java.util.Set;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.typeinfo.TypeInformation;
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
 * and emits the target's changelog (SPEC §8): {@code +I}, {@code -U}/{@code +U} (or {@code +U}
 * alone in upsert mode) and {@code -D}, each retraction carrying exactly the row it retracts.
 *
 * <p>Guarantees: the materialized changelog equals SPEC §3-5 for the events processed so far, in
 * any arrival order, on the RocksDB and the heap backends, across checkpoints and restores (state
 * is only in Flink keyed state, with explicit serializers). Invalid events (SPEC §11: null key,
 * null in a sequence, bad COLUMNS TO UPDATE, values that do not convert) go to {@link
 * #DEAD_LETTERS} with a reason code and are counted; they never throw.
 *
 * <p>State per key (names are part of the savepoint format; see docs/state.md):
 *
 * <ul>
 *   <li>SCD1: {@value #SCD1_EVENTS}: the few events that still decide the row;
 *   <li>SCD2: {@value #SCD2_RECENT} (the newest timeline entries, the head last) and {@value
 *       #SCD2_BLOCKS} (the older entries in blocks of consecutive entries, newest first in
 *       RocksDB);
 *   <li>bitemporal: the current belief as SCD2 keeps a timeline, every event included ({@value
 *       #BITEMPORAL_RECENT}, which also holds the key's system-time facts, and {@value
 *       #BITEMPORAL_BLOCKS}; the entry where a closed version ends records when its believed row
 *       starts in system time), {@value #BITEMPORAL_HEAD} (those facts for a key whose expired
 *       tombstone left no entries) and, once the history retention dropped history, {@value
 *       #BITEMPORAL_SNAPSHOT};
 *   <li>{@value #TOMBSTONE_EXPIRY}: when a deleted key is forgotten (processing time, SPEC §7);
 *   <li>SCD2: {@value #HISTORY_FLOOR} (the oldest sequence still held, after a history retention
 *       pass or a tombstone expiry; the bitemporal head carries both floors of its key instead);
 *   <li>SCD2 and bitemporal: {@value #HISTORY_PRUNE_AT} (the pending pruning timer).
 * </ul>
 *
 * <p>APPLY AS TRUNCATE WHEN needs every key: flows with truncates run as {@link
 * AutoCdcTruncateFunction} ({@link AutoCdc#apply} chooses); a truncate reaching this function is
 * dead-lettered ({@link DeadLetter#UNSUPPORTED_TRUNCATE}).
 */
public class AutoCdcFunction extends KeyedProcessFunction<Object, RowData, RowData>
        implements CheckpointedFunction {
    private static final long serialVersionUID = 1L;

    public static final String SCD1_EVENTS = "auto-cdc-scd1-decisive-events";
    public static final String SCD2_RECENT = "auto-cdc-scd2-recent";
    public static final String SCD2_BLOCKS = "auto-cdc-scd2-blocks";

    /** Pre-release SCD2 layout, registered only so that restoring it fails (see docs/state.md). */
    static final String LEGACY_SCD2_HEAD = "auto-cdc-scd2-head";

    static final String LEGACY_SCD2_TIMELINE = "auto-cdc-scd2-timeline";
    public static final String BITEMPORAL_HEAD = "auto-cdc-bitemporal-head";
    public static final String BITEMPORAL_RECENT = "auto-cdc-bitemporal-recent";
    public static final String BITEMPORAL_BLOCKS = "auto-cdc-bitemporal-blocks";

    /**
     * Pre-release bitemporal layout (every event in one map), registered only so that restoring it
     * fails.
     */
    static final String LEGACY_BITEMPORAL_EVENTS = "auto-cdc-bitemporal-events";

    public static final String BITEMPORAL_SNAPSHOT = "auto-cdc-bitemporal-snapshot";
    public static final String TOMBSTONE_EXPIRY = "auto-cdc-tombstone-expiry";

    /**
     * Operator state (union list): the flow's {@link FlowShape} when the state was written, checked
     * on restore.
     */
    public static final String FLOW_SHAPE = "auto-cdc-flow-shape";

    public static final String HISTORY_FLOOR = "auto-cdc-history-floor";
    public static final String HISTORY_PRUNE_AT = "auto-cdc-history-prune-at";

    /**
     * The states every event of a key reads and writes, which the write-back cache keeps ({@link
     * EngineSpec#stateCacheKeys()}): SCD1's decisive events, the recent entries of SCD2 and
     * bitemporal histories.
     */
    static final Set<String> CACHED_STATES = Set.of(SCD1_EVENTS, SCD2_RECENT, BITEMPORAL_RECENT);

    /** Side output of events the engine cannot apply. */
    public static final OutputTag<DeadLetter> DEAD_LETTERS =
            new OutputTag<>("auto-cdc-dead-letters", TypeInformation.of(DeadLetter.class));

    /**
     * Side output of events that would change history already dropped by the history retention
     * (reason {@value DeadLetter#BEFORE_RETAINED_HISTORY}).
     */
    public static final OutputTag<DeadLetter> LATE_EVENTS =
            new OutputTag<>("auto-cdc-late-events", TypeInformation.of(DeadLetter.class));

    private final FlowRuntime runtime;

    /** The effects over the contexts Flink last handed for an element and for a timer. */
    private transient Context elementContext;

    private transient FlowRuntime.Effects elementEffects;
    private transient Context timerContext;
    private transient FlowRuntime.Effects timerEffects;

    /** The operator whose current key a write-back cache follows; null: no cache. */
    private transient KeyContext cacheKeys;

    private transient CachingStateAccess cache;

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
        int capacity = runtime.spec().stateCacheKeys();
        if (cacheKeys != null && capacity > 0) {
            cache =
                    new CachingStateAccess(
                            states, cacheKeys, capacity, runtime.spec().flow().name());
            states = cache;
        }
        runtime.open(states);
    }

    /**
     * Lets the function keep a write-back cache of its hot states under {@code operator}'s keys;
     * call before {@link #open}. The operator must then call {@link #flushCache()} before each
     * snapshot of keyed state ({@link AutoCdcOperator} does).
     */
    void cacheUnder(KeyContext operator) {
        this.cacheKeys = operator;
    }

    /** The write-back cache of hot state; null when none (for tests). */
    CachingStateAccess stateCache() {
        return cache;
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
