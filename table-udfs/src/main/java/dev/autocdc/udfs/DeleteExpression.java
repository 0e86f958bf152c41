package dev.autocdc.udfs;

import java.io.Serializable;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.util.List;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.functions.FunctionContext;
import org.apache.flink.table.functions.SpecializedFunction.ExpressionEvaluator;
import org.apache.flink.table.functions.SpecializedFunction.SpecializedContext;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.utils.DataTypeUtils;
import org.apache.flink.util.ExceptionUtils;

/**
 * The {@code apply_as_deletes} argument of {@code AUTO_CDC}: any Flink SQL condition on the input's
 * columns, compiled by Flink's planner when it specializes the call ({@link
 * SpecializedContext#createEvaluator}) with every input column as a parameter, and evaluated on
 * each input row. A row is a delete when the condition is TRUE (not FALSE, not NULL), as for the
 * flow clause APPLY AS DELETE WHEN.
 */
final class DeleteExpression implements Serializable {
    private static final long serialVersionUID = 1L;

    private final ExpressionEvaluator evaluator;
    private final RowType input;

    private transient MethodHandle handle;
    private transient RowData.FieldGetter[] getters;
    private transient Object[] values;

    private DeleteExpression(ExpressionEvaluator evaluator, RowType input) {
        this.evaluator = evaluator;
        this.input = input;
    }

    /**
     * Compiles {@code condition} over the columns of {@code input} (internal data, as the function
     * reads its rows); a condition Flink cannot compile fails naming the argument, the columns and
     * Flink's reason.
     */
    static DeleteExpression of(
            SpecializedContext context, String function, String condition, RowType input) {
        List<RowType.RowField> columns = input.getFields();
        DataTypes.Field[] fields = new DataTypes.Field[columns.size()];
        for (int i = 0; i < fields.length; i++) {
            RowType.RowField c = columns.get(i);
            fields[i] = DataTypes.FIELD(c.getName(), DataTypeUtils.toInternalDataType(c.getType()));
        }
        try {
            return new DeleteExpression(
                    context.createEvaluator(condition, DataTypes.BOOLEAN(), fields), input);
        } catch (RuntimeException e) {
            throw AutoCdcPlan.error(
                    function,
                    "apply_as_deletes",
                    "'"
                            + condition
                            + "' is not a BOOLEAN condition on the input's columns "
                            + input.getFieldNames()
                            + ": "
                            + reason(e)
                            + ". Write it as in a WHERE clause, quotes doubled inside the literal,"
                            + " e.g. apply_as_deletes => 'operation = ''DELETE'''");
        }
    }

    /** The innermost message: Flink wraps the parser's or validator's reason. */
    private static String reason(Throwable e) {
        String m = e.getMessage();
        for (Throwable c = e.getCause(); c != null; c = c.getCause()) {
            if (c.getMessage() != null) {
                m = c.getMessage();
            }
        }
        return m != null && m.endsWith(".") ? m.substring(0, m.length() - 1) : m;
    }

    /** Readies the compiled condition in a running function. */
    void open(FunctionContext context) {
        // one handle taking every column in an array, so that a row costs no adapter
        handle =
                evaluator
                        .open(context)
                        .asSpreader(Object[].class, input.getFieldCount())
                        .asType(MethodType.methodType(Object.class, Object[].class));
        getters = new RowData.FieldGetter[input.getFieldCount()];
        for (int i = 0; i < getters.length; i++) {
            getters[i] = RowData.createFieldGetter(input.getTypeAt(i), i);
        }
        values = new Object[getters.length];
    }

    /**
     * Whether the input row is a delete: its condition is TRUE.
     *
     * @throws IllegalArgumentException when the condition fails on the row's values (a CAST of a
     *     value that does not convert): the row is a dead letter
     */
    boolean test(RowData row) {
        for (int i = 0; i < getters.length; i++) {
            values[i] = getters[i].getFieldOrNull(row);
        }
        try {
            return Boolean.TRUE.equals((Object) handle.invokeExact(values));
        } catch (Throwable t) {
            ExceptionUtils.rethrowIfFatalError(t);
            throw new IllegalArgumentException(
                    "apply_as_deletes failed on the row: " + reason(t), t);
        }
    }

    void close() {
        evaluator.close();
    }
}
