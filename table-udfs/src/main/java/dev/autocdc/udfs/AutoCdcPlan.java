package dev.autocdc.udfs;

import dev.autocdc.operators.core.AutoCdcFlow;
import dev.autocdc.operators.core.FlowDefinitionException;
import dev.autocdc.operators.flink.spec.ControlColumn;
import dev.autocdc.operators.flink.spec.EngineSettings;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.spec.FlowMapping;
import dev.autocdc.operators.flink.spec.OutputMode;
import dev.autocdc.operators.flink.state.StateLayout;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * How one {@code AUTO_CDC} call maps its input table onto the engine: which columns the target
 * keeps, where the sequence, system sequence, delete flag and COLUMNS TO UPDATE list come from, and
 * the resulting {@link EngineSpec}. Built from the input's row type, its PARTITION BY columns (the
 * KEYS) and the call's literal arguments ({@link AutoCdcArguments}), the same way at planning time
 * (to type the output and fail early) and in the running function.
 *
 * <p>The rules are the flow language's (see the job's planner): the target keeps the columns of
 * {@code column_list}, or all columns but {@code except_column_list}; the keys always; never the
 * {@code columns_to_update} column. Kept sequence columns are marked as such (they take each
 * event's value). A bad argument fails with a {@link ValidationException} that names it and says
 * the fix; {@link AutoCdcCall} reads the arguments.
 */
final class AutoCdcPlan implements Serializable {
    private static final long serialVersionUID = 1L;

    private final RowType inputType;
    private final EngineSpec spec;

    /** Input positions of the target's base columns, in target order. */
    private final int[] kept;

    /** Input positions of the sequence columns; more than one forms a STRUCT. */
    private final int[] sequence;

    private final int systemSequence;
    private final boolean delete;
    private final int columnsToUpdate;

    /**
     * Positions of the keys in the target row: the function's output leaves them out (Flink
     * prefixes them).
     */
    private final int[] targetKeys;

    private AutoCdcPlan(
            RowType inputType,
            EngineSpec spec,
            int[] kept,
            int[] sequence,
            int systemSequence,
            boolean delete,
            int columnsToUpdate) {
        this.inputType = inputType;
        this.spec = spec;
        this.kept = kept;
        this.sequence = sequence;
        this.systemSequence = systemSequence;
        this.delete = delete;
        this.columnsToUpdate = columnsToUpdate;
        this.targetKeys = spec.flow().keyIndexes();
    }

    /**
     * Plans a call.
     *
     * @param input the input table's row type
     * @param partitionBy the input positions of the PARTITION BY columns
     * @param mode the changelog the function emits
     */
    static AutoCdcPlan of(
            String function,
            RowType input,
            int[] partitionBy,
            AutoCdcArguments args,
            OutputMode mode) {
        List<String> names = input.getFieldNames();
        AutoCdcFlow flow = AutoCdcCall.flow(function, names, partitionBy, args);
        FlowMapping mapping;
        try {
            mapping = FlowMapping.of(flow, names);
        } catch (FlowDefinitionException e) {
            throw error(
                    function,
                    AutoCdcCall.argumentOf(e.clause(), args),
                    AutoCdcCall.wording(e, names));
        }
        int[] sequence = mapping.sequence().stream().mapToInt(names::indexOf).toArray();
        int system =
                mapping.systemSequence() == null ? -1 : names.indexOf(mapping.systemSequence());
        int ctu = mapping.columnsToUpdate() == null ? -1 : names.indexOf(mapping.columnsToUpdate());
        boolean delete = args.applyAsDeletes != null;
        int[] kept = mapping.kept().stream().mapToInt(names::indexOf).toArray();
        // every input column is data, whatever its name (semantics §11)
        String prefix = ControlColumn.prefixAvoiding(names);
        List<RowType.RowField> engineInput =
                engineInputFields(input, kept, sequence, system, delete, ctu, prefix);
        try {
            EngineSpec spec =
                    mapping.engineSpec(
                            flow,
                            new RowType(engineInput),
                            prefix,
                            EngineSettings.withoutTimers(),
                            mode);
            return new AutoCdcPlan(input, spec, kept, sequence, system, delete, ctu);
        } catch (FlowDefinitionException e) {
            throw error(function, AutoCdcCall.argumentOf(e.clause(), args), e.detail());
        } catch (IllegalArgumentException e) {
            throw error(
                    function, "input", "has a column the engine cannot keep: " + e.getMessage());
        }
    }

    /**
     * The fields of the engine's input row ({@link #engineInput} fills them): the kept input
     * columns, then the control columns of the call, named with {@code prefix}; a position of -1
     * has no column.
     */
    private static List<RowType.RowField> engineInputFields(
            RowType input,
            int[] kept,
            int[] sequence,
            int system,
            boolean delete,
            int ctu,
            String prefix) {
        List<RowType.RowField> engineInput = new ArrayList<>();
        for (int k : kept) {
            engineInput.add(input.getFields().get(k));
        }
        engineInput.add(
                new RowType.RowField(
                        ControlColumn.SEQUENCE.columnName(prefix), sequenceType(input, sequence)));
        if (system >= 0) {
            engineInput.add(
                    new RowType.RowField(
                            ControlColumn.SYSTEM_SEQUENCE.columnName(prefix),
                            input.getTypeAt(system)));
        }
        if (delete) {
            engineInput.add(
                    new RowType.RowField(
                            ControlColumn.DELETE.columnName(prefix), new BooleanType(false)));
        }
        if (ctu >= 0) {
            engineInput.add(
                    new RowType.RowField(
                            ControlColumn.COLUMNS_TO_UPDATE.columnName(prefix),
                            input.getTypeAt(ctu)));
        }
        return engineInput;
    }

    EngineSpec spec() {
        return spec;
    }

    /**
     * What the stored state's bytes depend on: the state layout of the target type, the columns and
     * their types.
     */
    String stateLayout() {
        return stateLayout(spec.flow().columnCount());
    }

    /** The layout of this call with only its first {@code columns} columns. */
    private String stateLayout(int columns) {
        return StateLayout.describe(spec.flow().targetType())
                + ", columns "
                + spec.flow().columnNames().subList(0, columns)
                + " "
                + spec.flow().columnTypes().subList(0, columns);
    }

    /**
     * The fingerprints of this call's layouts before its last columns were added, each with its
     * number of columns: stored values with one of them are read with null in the added columns.
     * Only nullable columns may have been added (as the job's restore allows: {@code FlowShape}).
     */
    Map<Integer, Integer> earlierLayouts() {
        Map<Integer, Integer> earlier = new HashMap<>();
        RowType target = spec.targetType(); // the flow's columns first, in order
        for (int k = spec.flow().columnCount() - 1; k >= 1; k--) {
            if (!target.getTypeAt(k).isNullable()) {
                break;
            }
            earlier.put(stateLayout(k).hashCode(), k);
        }
        return earlier;
    }

    /**
     * The function's output columns: the target's columns without the keys (Flink puts the
     * PARTITION BY columns first), then {@code __START_AT} ... as in the job's target.
     */
    RowType outputType() {
        RowType target = spec.targetType();
        List<RowType.RowField> fields = new ArrayList<>();
        for (int i = 0; i < target.getFieldCount(); i++) {
            if (!isKey(i)) {
                fields.add(target.getFields().get(i));
            }
        }
        return new RowType(fields);
    }

    /**
     * The engine's input row for one input row (internal data, the row kind kept).
     *
     * @param isDelete the row's {@code apply_as_deletes} condition (null without one)
     */
    RowData engineInput(RowData in, Boolean isDelete) {
        int n =
                kept.length
                        + 1
                        + (systemSequence >= 0 ? 1 : 0)
                        + (delete ? 1 : 0)
                        + (columnsToUpdate >= 0 ? 1 : 0);
        GenericRowData row = new GenericRowData(in.getRowKind(), n);
        int f = 0;
        for (int k : kept) {
            row.setField(f++, field(in, k));
        }
        if (sequence.length == 1) {
            row.setField(f++, field(in, sequence[0]));
        } else {
            GenericRowData struct = new GenericRowData(sequence.length);
            for (int i = 0; i < sequence.length; i++) {
                struct.setField(i, field(in, sequence[i]));
            }
            row.setField(f++, struct);
        }
        if (systemSequence >= 0) {
            row.setField(f++, field(in, systemSequence));
        }
        if (delete) {
            row.setField(f++, isDelete);
        }
        if (columnsToUpdate >= 0) {
            row.setField(f, field(in, columnsToUpdate));
        }
        return row;
    }

    /** The function's output row for one target row: the key columns left out. */
    RowData output(RowData target) {
        GenericRowData out =
                new GenericRowData(target.getRowKind(), target.getArity() - targetKeys.length);
        GenericRowData t = (GenericRowData) target;
        int f = 0;
        for (int i = 0; i < target.getArity(); i++) {
            if (!isKey(i)) {
                out.setField(f++, t.getField(i));
            }
        }
        return out;
    }

    private boolean isKey(int targetField) {
        for (int k : targetKeys) {
            if (k == targetField) {
                return true;
            }
        }
        return false;
    }

    private transient RowData.FieldGetter[] getters;

    private Object field(RowData in, int pos) {
        if (getters == null) {
            getters = new RowData.FieldGetter[inputType.getFieldCount()];
            for (int i = 0; i < getters.length; i++) {
                getters[i] = RowData.createFieldGetter(inputType.getTypeAt(i), i);
            }
        }
        return getters[pos].getFieldOrNull(in);
    }

    private static LogicalType sequenceType(RowType input, int[] sequence) {
        if (sequence.length == 1) {
            return input.getTypeAt(sequence[0]);
        }
        List<RowType.RowField> fields = new ArrayList<>();
        for (int s : sequence) {
            fields.add(input.getFields().get(s));
        }
        return new RowType(fields);
    }

    static ValidationException error(String function, String argument, String message) {
        return new ValidationException(function + ": argument " + argument + " " + message);
    }
}
