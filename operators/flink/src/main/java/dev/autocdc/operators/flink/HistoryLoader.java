package dev.autocdc.operators.flink;

import dev.autocdc.operators.core.ChangeEvent;
import dev.autocdc.operators.core.HistoryEvents;
import dev.autocdc.operators.core.InvalidHistoryException;
import dev.autocdc.operators.core.TargetChange;
import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.runtime.FlowRuntime;
import dev.autocdc.operators.flink.spec.ControlColumn;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.spec.TypeMapping;
import dev.autocdc.operators.flink.state.KeyedStateAccess;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.streaming.api.TimerService;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * Starts a flow from a history stored elsewhere (bootstrap): writes one key's stored rows into the
 * flow's keyed state, exactly as {@link AutoCdcFunction} keeps it, so that a job of the flow
 * restored from that state applies new events as if it had seen the events behind the rows.
 *
 * <p>The rows are {@link #historyType} rows of one key: the target's columns (semantics §3-5), for
 * type 1 with the row's sequence as {@code __START_AT}. They become the fewest events that make
 * them ({@link HistoryEvents}), which the flow's own engine applies; the rows it makes of them must
 * be the stored rows, else the history is refused with the first row that differs (an untracked
 * column no event sequence can show, say). Nothing is emitted: the rows are already in the target.
 *
 * <p>A host calls {@link #initializeShape} and {@link #open} as {@link AutoCdcFunction} does, then
 * {@link #load} once per key with the current key set.
 */
public final class HistoryLoader implements Serializable {
    private static final long serialVersionUID = 1L;

    private final FlowRuntime runtime;
    private final RowType historyType;

    private transient LogicalType[] types;
    private transient RowData.FieldGetter[] getters;

    /**
     * @throws IllegalArgumentException for a flow whose histories cannot be replayed ({@link
     *     HistoryEvents#unsupported}) or a flow from snapshots
     */
    public HistoryLoader(EngineSpec spec) {
        String unsupported = unsupported(spec);
        if (unsupported != null) {
            throw new IllegalArgumentException(
                    "AUTO CDC flow "
                            + spec.flow().name()
                            + " cannot start from a stored history: "
                            + unsupported);
        }
        this.runtime = new FlowRuntime(spec, false, false);
        this.historyType = historyType(spec);
    }

    /** Why a flow cannot start from a stored history, or null when it can. */
    public static String unsupported(EngineSpec spec) {
        if (spec.snapshot()) {
            return "it is a flow FROM SNAPSHOT, whose state also indexes the keys of every"
                    + " snapshot: start it from its first snapshot instead";
        }
        return HistoryEvents.unsupported(spec.flow());
    }

    /**
     * The rows a stored history is read as: the target's columns, each nullable (a null where the
     * target has none is refused by name, not by a failing read); type 1 adds {@code __START_AT},
     * the row's sequence.
     */
    public static RowType historyType(EngineSpec spec) {
        List<RowType.RowField> fields = new ArrayList<>();
        for (RowType.RowField f : spec.targetType().getFields()) {
            fields.add(new RowType.RowField(f.getName(), f.getType().copy(true)));
        }
        if (spec.flow().targetType() == TargetType.SCD1) {
            fields.add(
                    new RowType.RowField(
                            "__START_AT",
                            spec.inputType()
                                    .getTypeAt(spec.field(ControlColumn.SEQUENCE))
                                    .copy(true)));
        }
        return new RowType(fields);
    }

    /** The flow's key of a {@link #historyType} row, as {@link FlowKeySelector} keys the flow. */
    public static FlowKeySelector keySelector(EngineSpec spec) {
        return FlowKeySelector.ofTargetRows(spec);
    }

    public void initializeShape(FunctionInitializationContext context) throws Exception {
        runtime.initializeShape(context);
    }

    public void open(RuntimeContext context) {
        runtime.open(KeyedStateAccess.of(context));
    }

    /**
     * Checks one key's stored rows without touching state: what {@link #load} refuses, this refuses
     * (for a host whose failures would not fail its job).
     *
     * @throws InvalidHistoryException naming the first row that the flow does not make
     */
    public void check(List<RowData> rows) throws InvalidHistoryException {
        HistoryEvents.checked(runtime.spec().flow(), stored(rows));
    }

    /**
     * Writes the state of the current key from its stored rows.
     *
     * @throws InvalidHistoryException naming the first row that the flow does not make
     */
    public void load(List<RowData> rows, TimerService timers) throws Exception {
        List<TargetChange> changes = new ArrayList<>();
        for (ChangeEvent e : HistoryEvents.checked(runtime.spec().flow(), stored(rows))) {
            changes.clear(); // already in the target
            runtime.replay(e, timers, changes);
        }
    }

    /** The rows as Java values; a null key is refused. */
    private List<HistoryEvents.Row> stored(List<RowData> rows) throws InvalidHistoryException {
        if (getters == null) {
            types = historyType.getChildren().toArray(new LogicalType[0]);
            getters = new RowData.FieldGetter[types.length];
            for (int i = 0; i < types.length; i++) {
                getters[i] = RowData.createFieldGetter(types[i], i);
            }
        }
        EngineSpec spec = runtime.spec();
        int base = spec.flow().columnCount();
        List<HistoryEvents.Row> history = new ArrayList<>(rows.size());
        for (RowData r : rows) {
            Object[] values = new Object[types.length];
            for (int i = 0; i < values.length; i++) {
                values[i] = TypeMapping.toJava(types[i], getters[i].getFieldOrNull(r));
            }
            Object[] row = Arrays.copyOf(values, base);
            HistoryEvents.Row h =
                    new HistoryEvents.Row(
                            row,
                            values[base],
                            at(values, base + 1),
                            at(values, base + 2),
                            at(values, base + 3));
            for (int k : spec.flow().keyIndexes()) {
                if (row[k] == null) {
                    throw new InvalidHistoryException(
                            h, "its key column " + spec.flow().columnNames().get(k) + " is null");
                }
            }
            history.add(h);
        }
        return history;
    }

    private static Object at(Object[] values, int i) {
        return i < values.length ? values[i] : null;
    }
}
