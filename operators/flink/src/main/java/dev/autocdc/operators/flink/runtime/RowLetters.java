package dev.autocdc.operators.flink.runtime;

import dev.autocdc.operators.flink.spec.ControlColumn;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.spec.TypeMapping;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * The dead letter of an input row (laid out as {@link EngineSpec} describes): the flow, the reason
 * and message given, the source record as JSON text, and the Kafka coordinates the row carries.
 */
final class RowLetters {
    private final EngineSpec spec;
    private final LogicalType[] inputTypes;
    private final RowData.FieldGetter[] inputGetters;
    private final int topic;
    private final int partition;
    private final int offset;
    private final int record;

    RowLetters(EngineSpec spec, LogicalType[] inputTypes, RowData.FieldGetter[] inputGetters) {
        this.spec = spec;
        this.inputTypes = inputTypes;
        this.inputGetters = inputGetters;
        topic = spec.field(ControlColumn.TOPIC);
        partition = spec.field(ControlColumn.PARTITION);
        offset = spec.field(ControlColumn.OFFSET);
        record = spec.field(ControlColumn.RECORD);
    }

    DeadLetter of(String flow, String reason, String message, RowData input) {
        return located(new DeadLetter(flow, reason, message, describe(input)), input);
    }

    /**
     * Adds the Kafka coordinates the input carries ({@code __topic}, {@code __partition}, {@code
     * __offset}).
     */
    private DeadLetter located(DeadLetter d, RowData input) {
        d.topic = topic >= 0 && !input.isNullAt(topic) ? input.getString(topic).toString() : null;
        d.partition = partition >= 0 && !input.isNullAt(partition) ? input.getInt(partition) : null;
        d.offset = offset >= 0 && !input.isNullAt(offset) ? input.getLong(offset) : null;
        return d;
    }

    /**
     * The source record as JSON text (see {@link JsonRows}): the base columns, then the columns the
     * target leaves out ({@link ControlColumn#RECORD}); without that column (a target that keeps
     * every source column, or a DataStream input), every input field, the engine's own included. A
     * field that cannot be read is rendered as null.
     */
    private String describe(RowData input) {
        if (record < 0) {
            return JsonRows.object(
                    spec.inputType().getFieldNames(),
                    Arrays.asList(inputTypes),
                    read(input, allFields()));
        }
        int[] base = spec.baseFields();
        List<String> names = new ArrayList<>();
        List<LogicalType> types = new ArrayList<>();
        for (int b : base) {
            names.add(spec.inputType().getFieldNames().get(b));
            types.add(inputTypes[b]);
        }
        Object[] values = read(input, base);
        RowType left = (RowType) inputTypes[record];
        names.addAll(left.getFieldNames());
        types.addAll(left.getChildren());
        Object[] all = Arrays.copyOf(values, names.size());
        Object rest = readOrNull(input, record);
        if (rest instanceof Object[] r) {
            System.arraycopy(r, 0, all, values.length, r.length);
        }
        return JsonRows.object(names, types, all);
    }

    private int[] allFields() {
        int[] all = new int[inputTypes.length];
        Arrays.setAll(all, i -> i);
        return all;
    }

    private Object[] read(RowData input, int[] fields) {
        Object[] values = new Object[fields.length];
        for (int i = 0; i < fields.length; i++) {
            values[i] = readOrNull(input, fields[i]);
        }
        return values;
    }

    private Object readOrNull(RowData input, int pos) {
        try {
            return TypeMapping.toJava(inputTypes[pos], inputGetters[pos].getFieldOrNull(input));
        } catch (RuntimeException e) {
            return null;
        }
    }
}
