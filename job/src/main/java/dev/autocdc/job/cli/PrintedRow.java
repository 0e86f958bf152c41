package dev.autocdc.job.cli;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * A target's changelog row as the CLI prints it for a target without a connector: its kind and
 * values, {@code +I(1,Alice,Monterrey,1,null)}. The engine emits binary rows, whose own {@code
 * toString} names only the class; this reads each field with the target's types.
 */
final class PrintedRow implements MapFunction<RowData, String> {
    private static final long serialVersionUID = 1L;

    private final RowType type;
    private transient RowData.FieldGetter[] getters;

    PrintedRow(RowType type) {
        this.type = type;
    }

    @Override
    public String map(RowData row) {
        if (getters == null) {
            getters = new RowData.FieldGetter[type.getFieldCount()];
            for (int i = 0; i < getters.length; i++) {
                getters[i] = RowData.createFieldGetter(type.getTypeAt(i), i);
            }
        }
        GenericRowData values = new GenericRowData(row.getRowKind(), getters.length);
        for (int i = 0; i < getters.length; i++) {
            values.setField(i, getters[i].getFieldOrNull(row));
        }
        return values.toString();
    }
}
