package dev.autocdc.operators.flink.spec;

import dev.autocdc.operators.core.Flow;
import dev.autocdc.operators.core.FlowBuilder;
import dev.autocdc.operators.core.FlowDefinitionException;
import dev.autocdc.operators.core.TargetType;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.table.types.logical.RowType;

/**
 * The input contract of an {@link EngineSpec} read from one input row type: each {@link
 * ControlColumn} found by its name under the control prefix and checked against its rule (when
 * constructed), then what the control columns present declare ({@link #declareControls}), then
 * every other column as a base column of the flow ({@link #build}). Each step fails fast with a
 * {@link FlowDefinitionException} naming the clause.
 */
final class InputLayout {
    /** The target's own columns, which no base column may be named like (semantics §3-5). */
    private static final List<String> PERIOD_COLUMNS =
            List.of("__START_AT", "__END_AT", "__SYSTEM_START_AT", "__SYSTEM_END_AT");

    private final RowType input;
    private final TargetType type;
    private final String controlPrefix;
    private final boolean snapshot;
    private final Set<String> controlNames = new HashSet<>();

    /** The position of each {@link ControlColumn} in the input (by ordinal), or -1. */
    private final int[] controls;

    private final List<Integer> base = new ArrayList<>();

    InputLayout(RowType input, TargetType type, String controlPrefix, boolean snapshot) {
        this.input = input;
        this.type = type;
        this.controlPrefix = controlPrefix;
        this.snapshot = snapshot;
        this.controls = controls();
    }

    /** The position of a control column in the input row, or -1 when the input has none. */
    int field(ControlColumn column) {
        return controls[column.ordinal()];
    }

    /** The position of each {@link ControlColumn} in the input (by ordinal), or -1. */
    int[] controlFields() {
        return controls;
    }

    /** Where each base column is in the input row (known after {@link #build}). */
    int[] baseFields() {
        return base.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * Each control column's position in the input (by ordinal; -1: absent), each checked against
     * its rule; their names go to {@link #controlNames}.
     */
    private int[] controls() {
        List<String> names = input.getFieldNames();
        int[] found = new int[ControlColumn.values().length];
        for (ControlColumn c : ControlColumn.values()) {
            String name = c.columnName(controlPrefix);
            int at = names.indexOf(name);
            controlNames.add(name);
            found[c.ordinal()] = at;
            String refusal = at < 0 ? null : c.refusal(input.getTypeAt(at), snapshot);
            if (refusal != null) {
                throw new FlowDefinitionException(c.clause(), refusal);
            }
        }
        return found;
    }

    /**
     * Declares to the flow what the control columns present stand for: the sequence's type (its
     * column is required), the system sequence's, APPLY AS TRUNCATE and COLUMNS TO UPDATE.
     */
    void declareControls(FlowBuilder flow) {
        int seq = field(ControlColumn.SEQUENCE);
        int sys = field(ControlColumn.SYSTEM_SEQUENCE);
        if (seq < 0) {
            throw new FlowDefinitionException(
                    "SEQUENCE BY",
                    "the engine's input has no "
                            + ControlColumn.SEQUENCE.columnName(controlPrefix)
                            + " column");
        }
        flow.sequenceBy(TypeMapping.columnType(input.getTypeAt(seq)));
        if (sys >= 0) {
            flow.systemSequenceBy(TypeMapping.columnType(input.getTypeAt(sys)));
        }
        if (field(ControlColumn.TRUNCATE) >= 0) {
            flow.applyAsTruncate();
        }
        if (field(ControlColumn.COLUMNS_TO_UPDATE) >= 0) {
            flow.columnsToUpdate();
        }
    }

    /**
     * Adds every input column that is not a control column to the flow as a base column, builds the
     * flow and checks what only the built flow tells: IGNORE NULL UPDATES from snapshots, the key
     * columns' types, the COLUMNS TO UPDATE column.
     */
    Flow build(FlowBuilder flow) {
        List<String> names = input.getFieldNames();
        for (int i = 0; i < names.size(); i++) {
            String n = names.get(i);
            if (!controlNames.contains(n)) {
                refusePeriodName(n);
                flow.column(n, TypeMapping.columnType(input.getTypeAt(i)));
                base.add(i);
            }
        }
        Flow built = flow.build();
        if (snapshot && !built.isFullRow()) { // columns to update were refused above
            throw new FlowDefinitionException(
                    "IGNORE NULL UPDATES", ControlColumn.notInSnapshots("IGNORE NULL UPDATES"));
        }
        checkKeys(built);
        if (built.hasColumnsToUpdate() && field(ControlColumn.COLUMNS_TO_UPDATE) < 0) {
            throw new FlowDefinitionException(
                    "COLUMNS TO UPDATE",
                    "the engine's input has no "
                            + ControlColumn.COLUMNS_TO_UPDATE.columnName(controlPrefix)
                            + " column");
        }
        return built;
    }

    /** Each key column's type can key a stream ({@link TypeMapping#keyTypeInfo}). */
    private void checkKeys(Flow built) {
        for (int k : built.keyIndexes()) {
            try {
                TypeMapping.keyTypeInfo(input.getTypeAt(base.get(k)));
            } catch (IllegalArgumentException e) {
                throw new FlowDefinitionException(
                        "KEYS",
                        e.getMessage().replace("a key column", built.columnNames().get(k)),
                        null,
                        built.columnNames().get(k));
            }
        }
    }

    /** A kept column named like one the target adds itself would be two columns of one name. */
    private void refusePeriodName(String column) {
        int own = type == TargetType.SCD1 ? 0 : type == TargetType.SCD2 ? 2 : 4;
        for (String p : PERIOD_COLUMNS.subList(0, own)) {
            if (p.equalsIgnoreCase(column)) {
                throw new FlowDefinitionException(
                        "COLUMNS",
                        "the source column "
                                + column
                                + " would be kept, but an "
                                + type
                                + " target has its own "
                                + p
                                + " column; leave it out with COLUMNS * EXCEPT ("
                                + column
                                + ")",
                        EngineSpec.RESERVED_COLUMN,
                        column);
            }
        }
    }
}
