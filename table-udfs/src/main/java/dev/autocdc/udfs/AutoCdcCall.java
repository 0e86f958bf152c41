package dev.autocdc.udfs;

import static dev.autocdc.udfs.AutoCdcPlan.error;

import dev.autocdc.operators.core.AutoCdcFlow;
import dev.autocdc.operators.core.FlowDefinitionException;
import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.spec.FlowMapping;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * An {@code AUTO_CDC} call's arguments read as a flow definition, for {@link AutoCdcPlan}: each
 * argument checked as the function takes it, the {@link AutoCdcFlow} the call makes, the delete
 * flag column, and a mistake the flow language finds worded as the argument it comes from. A bad
 * argument fails with a {@link org.apache.flink.table.api.ValidationException} ({@link
 * AutoCdcPlan#error}) that names it and says the fix. Stateless.
 */
final class AutoCdcCall {

    private AutoCdcCall() {}

    /**
     * The call as a flow definition, the one the job's flows are too: PARTITION BY gives the keys,
     * the other arguments their clauses (a delete flag column is the APPLY AS DELETE WHEN
     * condition).
     *
     * @param names the input's column names
     * @param partitionBy the input positions of the PARTITION BY columns
     */
    static AutoCdcFlow flow(
            String function, List<String> names, int[] partitionBy, AutoCdcArguments args) {
        if (partitionBy.length == 0) {
            throw error(
                    function,
                    "input",
                    "needs PARTITION BY with the key columns, e.g. TABLE cdc PARTITION BY id");
        }
        List<String> keys = new ArrayList<>();
        for (int p : partitionBy) {
            keys.add(names.get(p));
        }
        TargetType type = storedAs(function, args.storedAs);
        if (args.sequenceBy == null) {
            throw error(
                    function,
                    "sequence_by",
                    "is required: name the column that orders a key's events, e.g. sequence_by =>"
                            + " DESCRIPTOR(sequenceNum) (several order as a STRUCT)");
        }
        int ignoreNullForms =
                (Boolean.TRUE.equals(args.ignoreNullUpdates) ? 1 : 0)
                        + (args.ignoreNullUpdatesColumnList != null ? 1 : 0)
                        + (args.ignoreNullUpdatesExceptColumnList != null ? 1 : 0);
        if (ignoreNullForms > 1) {
            throw error(
                    function,
                    "ignore_null_updates",
                    "is given in two forms; give one of ignore_null_updates => TRUE (every"
                            + " column), ignore_null_updates_column_list or"
                            + " ignore_null_updates_except_column_list");
        }
        if (args.systemSequenceBy != null && type != TargetType.BITEMPORAL) {
            throw error(
                    function,
                    "system_sequence_by",
                    "applies to stored_as => 'BITEMPORAL' only; remove it or"
                            + " store the target as BITEMPORAL");
        } else if (args.systemSequenceBy == null && type == TargetType.BITEMPORAL) {
            throw error(
                    function,
                    "system_sequence_by",
                    "is required with stored_as => 'BITEMPORAL': name the column"
                            + " holding the system (transaction) time");
        }
        return definition(function, keys, type, args);
    }

    /** The clauses of a call whose required arguments are given. */
    private static AutoCdcFlow definition(
            String function, List<String> keys, TargetType type, AutoCdcArguments args) {
        List<String> sequence = args.sequenceBy;
        AutoCdcFlow.Builder b =
                AutoCdcFlow.builder(function.toLowerCase(Locale.ROOT), "input")
                        .keys(keys)
                        .storedAs(type)
                        .systemSequenceBy(args.systemSequenceBy)
                        .applyAsDeletes(args.applyAsDeletes)
                        .columnsToUpdate(args.columnsToUpdate)
                        .ignoreNullUpdates(Boolean.TRUE.equals(args.ignoreNullUpdates))
                        .ignoreNullUpdatesColumnList(args.ignoreNullUpdatesColumnList)
                        .ignoreNullUpdatesExceptColumnList(args.ignoreNullUpdatesExceptColumnList)
                        .columnList(args.columnList)
                        .exceptColumnList(args.exceptColumnList)
                        .trackHistoryColumnList(args.trackHistoryColumnList)
                        .trackHistoryExceptColumnList(args.trackHistoryExceptColumnList);
        if (sequence.size() == 1) {
            b.sequenceBy(sequence.get(0));
        } else {
            b.sequenceByStruct(sequence);
        }
        return b.build();
    }

    private static TargetType storedAs(String function, String storedAs) {
        if (storedAs == null) {
            return TargetType.SCD1;
        }
        String s = storedAs.trim().replaceAll("\\s+", " ").toUpperCase(Locale.ROOT);
        switch (s) {
            case "SCD TYPE 1":
            case "1":
                return TargetType.SCD1;
            case "SCD TYPE 2":
            case "2":
                return TargetType.SCD2;
            case "BITEMPORAL":
                return TargetType.BITEMPORAL;
            default:
                throw error(
                        function,
                        "stored_as",
                        "is '"
                                + storedAs
                                + "'; use 'SCD TYPE 1' (the default), 'SCD TYPE 2'"
                                + " or 'BITEMPORAL'");
        }
    }

    /**
     * A column mistake in the words of the function's arguments (the flow language's otherwise).
     */
    static String wording(FlowDefinitionException e, List<String> names) {
        if (FlowMapping.UNKNOWN_COLUMN.equals(e.problem())) {
            return "names " + e.subject() + ", which is not a column of the input " + names;
        }
        if (FlowMapping.KEY_EXCLUDED.equals(e.problem())) {
            return "names key column "
                    + e.subject()
                    + ": the PARTITION BY columns are always kept; remove it from the list";
        }
        if (FlowMapping.BOTH_COLUMN_LISTS.equals(e.problem())) {
            return "give column_list or except_column_list, not both";
        }
        return e.detail();
    }

    /** The argument a clause of the flow language comes from. */
    static String argumentOf(String clause, AutoCdcArguments args) {
        Map<String, String> byClause =
                Map.of(
                        "KEYS", "input (PARTITION BY)",
                        "SEQUENCE BY", "sequence_by",
                        "SYSTEM SEQUENCE BY", "system_sequence_by",
                        "STORED AS BITEMPORAL", "stored_as",
                        "IGNORE NULL UPDATES", "ignore_null_updates",
                        "COLUMNS TO UPDATE", "columns_to_update",
                        "APPLY AS DELETE WHEN", "apply_as_deletes",
                        "IGNORE NULL UPDATES ON", "ignore_null_updates_column_list",
                        "IGNORE NULL UPDATES ON * EXCEPT",
                                "ignore_null_updates_except_column_list");
        if (clause.startsWith("TRACK HISTORY")) {
            return args.trackHistoryColumnList != null
                    ? "track_history_column_list"
                    : "track_history_except_column_list";
        }
        if (clause.equals("COLUMNS")) {
            return args.columnList != null ? "column_list" : "except_column_list";
        }
        if (clause.equals("COLUMNS * EXCEPT")) {
            return "except_column_list";
        }
        return byClause.getOrDefault(clause, clause);
    }
}
