package dev.autocdc.udfs;

import java.io.Serializable;
import java.util.List;
import java.util.function.BiFunction;
import org.apache.flink.types.ColumnList;

/**
 * The scalar arguments of an {@code AUTO_CDC} call as given (null: not given), read from its
 * literals where the call is planned: for its output type and for the instance that runs it.
 * Columns are named by {@code DESCRIPTOR(...)} arguments, as Flink's own process table functions
 * take them; {@code stored_as} and {@code apply_as_deletes} are text, {@code ignore_null_updates} a
 * BOOLEAN.
 */
final class AutoCdcArguments implements Serializable {
    private static final long serialVersionUID = 1L;

    List<String> sequenceBy;
    String storedAs;
    String systemSequenceBy;
    String applyAsDeletes;
    List<String> columnList;
    List<String> exceptColumnList;
    Boolean ignoreNullUpdates;
    List<String> ignoreNullUpdatesColumnList;
    List<String> ignoreNullUpdatesExceptColumnList;
    List<String> trackHistoryColumnList;
    List<String> trackHistoryExceptColumnList;
    String columnsToUpdate;

    /**
     * Reads the arguments through {@code value} (an argument's name and class to its value, null
     * when not given). A descriptor of one column where one is meant, or an empty one, fails naming
     * the argument.
     */
    static AutoCdcArguments read(String function, BiFunction<String, Class<?>, Object> value) {
        AutoCdcArguments a = new AutoCdcArguments();
        a.sequenceBy = columns(function, "sequence_by", value);
        a.storedAs = (String) value.apply("stored_as", String.class);
        a.systemSequenceBy = column(function, "system_sequence_by", value);
        a.applyAsDeletes = (String) value.apply("apply_as_deletes", String.class);
        a.columnList = columns(function, "column_list", value);
        a.exceptColumnList = columns(function, "except_column_list", value);
        a.ignoreNullUpdates = (Boolean) value.apply("ignore_null_updates", Boolean.class);
        a.ignoreNullUpdatesColumnList = columns(function, "ignore_null_updates_column_list", value);
        a.ignoreNullUpdatesExceptColumnList =
                columns(function, "ignore_null_updates_except_column_list", value);
        a.trackHistoryColumnList = columns(function, "track_history_column_list", value);
        a.trackHistoryExceptColumnList =
                columns(function, "track_history_except_column_list", value);
        a.columnsToUpdate = column(function, "columns_to_update", value);
        return a;
    }

    private static List<String> columns(
            String function, String name, BiFunction<String, Class<?>, Object> value) {
        ColumnList c = (ColumnList) value.apply(name, ColumnList.class);
        if (c == null) {
            return null;
        }
        if (c.getNames().isEmpty()) {
            throw AutoCdcPlan.error(
                    function, name, "is empty; name one or more input columns: DESCRIPTOR(a, b)");
        }
        return List.copyOf(c.getNames());
    }

    private static String column(
            String function, String name, BiFunction<String, Class<?>, Object> value) {
        List<String> c = columns(function, name, value);
        if (c != null && c.size() != 1) {
            throw AutoCdcPlan.error(
                    function,
                    name,
                    "names " + c + "; name one column: DESCRIPTOR(" + c.get(0) + ")");
        }
        return c == null ? null : c.get(0);
    }
}
