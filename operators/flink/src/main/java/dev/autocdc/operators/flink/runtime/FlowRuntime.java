package dev.autocdc.operators.flink.runtime;

import dev.autocdc.operators.core.ChangeEvent;
import dev.autocdc.operators.core.Op;
import dev.autocdc.operators.core.TargetChange;
import dev.autocdc.operators.flink.spec.ControlColumn;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.spec.FlowShape;
import dev.autocdc.operators.flink.state.KeyedStateAccess;
import dev.autocdc.operators.flink.state.StateAccessCounter;
import dev.autocdc.operators.flink.state.StateDescriptors;
import dev.autocdc.operators.flink.state.StateNames;
import dev.autocdc.operators.flink.state.WideningStateAccess;
import dev.autocdc.operators.flink.targets.KeyedTarget;
import dev.autocdc.operators.flink.targets.Scd1Target;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.streaming.api.TimerService;
import org.apache.flink.streaming.api.functions.co.KeyedBroadcastProcessFunction;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * The per-key work of an AUTO CDC host ({@code AutoCdcFunction}, {@code AutoCdcTruncateFunction},
 * {@link AutoCdcProcessor}), wired from its parts: the {@link EventDecoder} turns a row into an
 * event or a dead letter, the {@link KeyedTarget} of the flow's type applies it to the key's state,
 * the {@link ChangelogEmitter} emits the target's changes, and {@link EngineMetrics} counts; a
 * failure of the key's work is named by {@link KeyFailure}. See {@link StateNames} for the state it
 * keeps.
 */
public final class FlowRuntime implements Serializable {
    private static final long serialVersionUID = 1L;

    private final EngineSpec spec;

    /**
     * Whether the history targets write their recent entries in the previous layout (tests of the
     * migration).
     */
    private final boolean previousRecentLayout;

    /** Whether the changelog's rows are one reused binary row ({@link ChangelogEmitter}). */
    private final boolean reuseOutputRow;

    private transient StateAccessCounter counter;
    private transient EngineMetrics metrics;
    private transient EventDecoder decoder;
    private transient KeyedTarget target;
    private transient ChangelogEmitter emitter;
    private transient KeyFailure failures;

    /**
     * The changes of the event being applied (one list for all: nothing keeps it past the event).
     */
    private transient List<TargetChange> changes;

    /**
     * The columns of the restored state's rows ({@link #initializeShape}); 0: as the flow's (no
     * flow has none). Zero is also what a transient int holds after Flink deserializes the
     * function, whatever an initializer says.
     */
    private transient int storedColumns;

    /** Reads state values stored before columns were added; null when none were. */
    private transient WideningStateAccess widening;

    /** The runtime of a Flink operator, whose output copies or serializes each row it gets. */
    public FlowRuntime(EngineSpec spec) {
        this(spec, false, true);
    }

    /**
     * @param reuseOutputRow whether the changelog is written into one reused row (a Flink
     *     operator's output); else every row is new (a collector that may keep the rows)
     */
    public FlowRuntime(EngineSpec spec, boolean previousRecentLayout, boolean reuseOutputRow) {
        this.spec = spec;
        this.previousRecentLayout = previousRecentLayout;
        this.reuseOutputRow = reuseOutputRow;
    }

    public EngineSpec spec() {
        return spec;
    }

    /** State accesses so far (for tests and benchmarks). */
    public StateAccessCounter stateAccesses() {
        return counter;
    }

    /** The flow's metrics (for tests). */
    public EngineMetrics metrics() {
        return metrics;
    }

    /**
     * Whether values read from state go through their serializer and back, as after a restore that
     * added columns (for tests).
     */
    public boolean widensState() {
        return widening != null;
    }

    /**
     * Refuses to restore state stored for another shape of the flow ({@link FlowShape}), and keeps
     * this flow's shape in the operator state {@link StateNames#FLOW_SHAPE}; call from the host's
     * initializeState(). Savepoints of builds before the shape was kept have none, and are checked
     * by the state serializers only.
     */
    public void initializeShape(FunctionInitializationContext context) throws Exception {
        ListState<String> shape =
                context.getOperatorStateStore().getUnionListState(StateDescriptors.flowShape());
        String current = FlowShape.of(spec);
        if (context.isRestored()) {
            for (String stored : shape.get()) {
                FlowShape.Verdict verdict = FlowShape.compare(spec.flow().name(), stored, current);
                if (verdict.refused()) {
                    throw new IllegalStateException(verdict.refusal());
                }
                storedColumns = verdict.storedColumns();
            }
        }
        shape.update(List.of(current));
    }

    /**
     * {@code value}, stored by {@code serializer} in state that this runtime did not open (the
     * broadcast state of truncates), read with the flow's current columns.
     */
    public <T> T widened(TypeSerializer<T> serializer, T value) {
        return widening == null ? value : widening.widen(serializer, value);
    }

    /** Creates the states and metrics; call from the host's open(). */
    public void open(KeyedStateAccess keyedStates) {
        KeyedStateAccess states = keyedStates;
        if (storedColumns > 0 && storedColumns < spec.flow().columnCount()) {
            widening = new WideningStateAccess(keyedStates);
            states = widening;
        }
        counter = new StateAccessCounter();
        metrics =
                new EngineMetrics(
                        states.getMetricGroup(), spec.flow().name(), SequenceClock.of(spec));
        decoder = new EventDecoder(spec, metrics);
        target = KeyedTarget.open(spec, states, metrics, counter, previousRecentLayout);
        emitter = new ChangelogEmitter(spec, metrics, reuseOutputRow);
        failures = new KeyFailure(spec);
        changes = new ArrayList<>(4);
    }

    /** The side effects a runtime needs from its host's context. */
    public interface Effects extends EventDecoder.Letters {
        TimerService timerService();

        <X> void output(OutputTag<X> tag, X value);

        @Override
        default void deadLetter(DeadLetter letter) {
            output(SideOutputs.DEAD_LETTERS, letter);
        }

        /** The effects of a broadcast function's element or timer. */
        static Effects of(
                TimerService timers,
                KeyedBroadcastProcessFunction<?, ?, ?, ?>.ReadOnlyContext ctx) {
            return new Effects() {
                @Override
                public TimerService timerService() {
                    return timers;
                }

                @Override
                public <X> void output(OutputTag<X> tag, X value) {
                    ctx.output(tag, value);
                }
            };
        }
    }

    /**
     * Counts and applies one input row of the current key.
     *
     * @param truncateFloor the greatest truncate still in force (SCD1 with truncates), or null
     */
    public void process(
            RowData input, Effects fx, Collector<RowData> out, ChangeEvent truncateFloor)
            throws Exception {
        metrics.input.inc();
        apply(input, fx, out, truncateFloor);
    }

    /**
     * Applies one row of the current key that is not counted as input: the caller counted it when
     * it arrived, or derived it (a flow from snapshots: the deletes a snapshot stands for). Returns
     * false when the target refused it as before the key's retained history; its row then went to
     * the late events.
     */
    public boolean apply(
            RowData input, Effects fx, Collector<RowData> out, ChangeEvent truncateFloor)
            throws Exception {
        if (apply(input, fx, out, truncateFloor, false)) {
            return true;
        }
        lateBeforeRetainedHistory(input, fx);
        return false;
    }

    /**
     * Applies a row derived by the caller that the caller reports itself if the target refuses it
     * (returns false, writes no letter).
     */
    public boolean applyDerived(RowData input, Effects fx, Collector<RowData> out)
            throws Exception {
        return apply(input, fx, out, null, true);
    }

    /**
     * Applies an event of the current key that the caller made (a stored history's, {@code
     * HistoryLoader}), uncounted: its changes go to {@code out}, not to an output.
     */
    public void replay(ChangeEvent event, TimerService timers, List<TargetChange> out)
            throws Exception {
        boolean applied;
        try {
            applied = target.apply(event, null, timers, out);
        } catch (Exception e) {
            throw failures.of(event, e);
        }
        if (!applied) {
            throw new IllegalStateException(
                    failures.where(event)
                            + ": a stored history's event was refused as before the key's"
                            + " retained history");
        }
    }

    /** Sends a row to the late events as before the key's retained history, counted. */
    public void lateBeforeRetainedHistory(RowData input, Effects fx) {
        metrics.droppedLate.inc();
        fx.output(SideOutputs.LATE_EVENTS, decoder.beforeRetainedHistory(input));
    }

    private boolean apply(
            RowData input,
            Effects fx,
            Collector<RowData> out,
            ChangeEvent truncateFloor,
            boolean derived)
            throws Exception {
        if (spec.field(ControlColumn.ERASE) >= 0
                && !input.isNullAt(spec.field(ControlColumn.ERASE))
                && input.getBoolean(spec.field(ControlColumn.ERASE))) {
            erase(input, fx, out);
            return true;
        }
        if (input.getRowKind() == RowKind.UPDATE_BEFORE) {
            // a changelog source's -U: its +U carries the new row
            metrics.skippedUpdateBefore.inc();
            return true;
        }
        ChangeEvent event = decoder.decode(input, false, fx);
        if (event == null) {
            return true;
        }
        changes.clear();
        boolean applied;
        try {
            applied = target.apply(event, truncateFloor, fx.timerService(), changes);
        } catch (Exception e) {
            throw failures.of(event, e);
        }
        if (!applied) {
            return false;
        }
        metrics.applied(input);
        emitter.emit(changes, out);
        return true;
    }

    /** Erases the current key ({@link KeyedTarget#erase}); a row without its key is a letter. */
    private void erase(RowData input, Effects fx, Collector<RowData> out) throws Exception {
        DeadLetter nullKey = decoder.nullKey(input);
        if (nullKey != null) {
            metrics.deadLettered.inc();
            fx.deadLetter(nullKey);
            return;
        }
        changes.clear();
        boolean whole;
        try {
            whole = target.erase(fx.timerService(), changes);
        } catch (Exception e) {
            throw failures.of(decoder.key(input), e);
        }
        metrics.erased.inc();
        emitter.emit(changes, out);
        if (!whole) {
            fx.output(SideOutputs.LATE_EVENTS, decoder.erasedBeyondState(input));
        }
    }

    /** Runs the due timers of the current key, {@code key} (a {@code FlowKeySelector} key). */
    public void onTimer(long timestamp, Object key, Effects fx) {
        try {
            target.onTimer(timestamp, fx.timerService());
        } catch (Exception e) {
            throw failures.ofFlinkKey(key, e);
        }
    }

    /** The dead letter of a row that the row alone refuses, uncounted; null when it passes. */
    public DeadLetter refusal(RowData input) {
        return decoder.refusal(input, false);
    }

    /**
     * The row's event, or null after sending its dead letter (counted): for a flow from snapshots,
     * which checks its rows when they arrive and applies them once their snapshot is complete.
     */
    public ChangeEvent decode(RowData input, Effects fx) {
        return decoder.decode(input, false, fx);
    }

    /** The decoder of the flow's rows (for a flow from snapshots). */
    public EventDecoder decoder() {
        return decoder;
    }

    /**
     * A truncate from the broadcast input, as an event (any row of that input is one), or null
     * after sending it to the dead letters.
     */
    public ChangeEvent decodeTruncate(RowData input, Effects fx) {
        ChangeEvent event = decoder.decode(input, true, fx);
        return event == null || event.op() == Op.TRUNCATE ? event : event.withOp(Op.TRUNCATE);
    }

    /**
     * Applies a new truncate floor to one key's SCD1 state (from the broadcast side, through
     * applyToKeyedState). Only SCD1 flows have truncates ({@link EngineSpec} refuses them
     * elsewhere).
     */
    public void applyTruncate(
            Object key,
            ValueState<List<ChangeEvent>> state,
            ChangeEvent truncate,
            Collector<RowData> out) {
        List<TargetChange> changes = new ArrayList<>(1);
        ValueState<List<ChangeEvent>> events =
                widening == null
                        ? state
                        : widening.widened(
                                state,
                                StateDescriptors.scd1Events(spec.flow().columnTypes())
                                        .getSerializer());
        try {
            ((Scd1Target) target).applyTruncate(events, truncate, changes);
        } catch (Exception e) {
            throw failures.ofFlinkKey(key, e);
        }
        emitter.emit(changes, out);
    }
}
