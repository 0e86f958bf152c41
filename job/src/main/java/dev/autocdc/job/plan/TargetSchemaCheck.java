package dev.autocdc.job.plan;

import dev.autocdc.job.flow.FlowScript;
import dev.autocdc.job.flow.FlowSyntaxException;
import dev.autocdc.operators.core.TargetType;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeCasts;

/**
 * A resolved target table against the flow's target (semantics §3-5): its physical columns and its
 * primary key, each refused with a message that names the clause, the first difference and the fix.
 */
final class TargetSchemaCheck {
    private TargetSchemaCheck() {}

    /**
     * The declared columns must be the flow's, in order, of types the flow's values cast to
     * implicitly; the first that is not is named, with the declaration that fixes it.
     */
    static void columns(
            FlowScript.TargetTable target, ResolvedSchema declared, RowType flowTarget) {
        List<String> names = new ArrayList<>();
        List<LogicalType> types = new ArrayList<>();
        for (Column c : declared.getColumns()) {
            if (c.isPhysical()) {
                names.add(c.getName());
                types.add(c.getDataType().getLogicalType());
            }
        }
        boolean same = names.size() == flowTarget.getFieldCount();
        for (int i = 0; same && i < names.size(); i++) {
            same = names.get(i).equalsIgnoreCase(flowTarget.getFieldNames().get(i));
        }
        if (!same) {
            throw new FlowSyntaxException(
                    target.line(),
                    "CREATE OR REFRESH STREAMING TABLE",
                    "target "
                            + target.name()
                            + " declares the columns "
                            + names
                            + ", but the flow writes "
                            + flowTarget.getFieldNames()
                            + "; declare those, in that order, or leave the columns out");
        }
        for (int i = 0; i < names.size(); i++) {
            LogicalType from = flowTarget.getTypeAt(i);
            // NOT NULL is the sink's business: the key columns are never null
            if (!LogicalTypeCasts.supportsImplicitCast(
                    from.copy(types.get(i).isNullable()), types.get(i))) {
                throw new FlowSyntaxException(
                        target.line(),
                        "CREATE OR REFRESH STREAMING TABLE",
                        "target "
                                + target.name()
                                + " declares "
                                + names.get(i)
                                + " "
                                + types.get(i).asSummaryString()
                                + ", but the flow writes "
                                + from.asSummaryString()
                                + " there; declare "
                                + names.get(i)
                                + " "
                                + from.copy(true).asSummaryString());
            }
        }
    }

    /** A declared primary key must be the target's by semantics §3-5 (null: none declared). */
    static void key(
            FlowScript.TargetTable target,
            TargetType type,
            List<String> key,
            List<String> flowKey) {
        if (key == null) {
            return;
        }
        List<String> a = new ArrayList<>();
        key.forEach(k -> a.add(k.toLowerCase(Locale.ROOT)));
        List<String> b = new ArrayList<>();
        flowKey.forEach(k -> b.add(k.toLowerCase(Locale.ROOT)));
        if (!a.containsAll(b) || !b.containsAll(a)) {
            throw new FlowSyntaxException(
                    target.line(),
                    "PRIMARY KEY",
                    "target "
                            + target.name()
                            + " declares PRIMARY KEY ("
                            + String.join(", ", key)
                            + "), but the primary key of "
                            + (type == TargetType.BITEMPORAL ? "a " : "an ")
                            + type
                            + " target is ("
                            + String.join(", ", flowKey)
                            + "), one row per "
                            + (type == TargetType.SCD1 ? "key" : "version")
                            + "; declare PRIMARY KEY ("
                            + String.join(", ", flowKey)
                            + ") NOT ENFORCED, or leave the key out");
        }
    }

    /**
     * The {@code PARTITIONED BY (...)} of a table to create, or empty. A history table keeps each
     * key's rows in one partition only when every partition column is in its primary key (Paimon's
     * rule for tables with a primary key, and Iceberg's for upserts), so any other is refused; so
     * is a clause that an existing table's partitions do not match.
     *
     * @param existing the partition columns of the table when it exists (used as it is), else null
     */
    static String partitions(
            FlowScript.TargetTable target, List<String> flowKey, List<String> existing) {
        if (target.partitionedBy() == null) {
            return "";
        }
        // the flow's KEYS: the target's key but its period columns
        List<String> keys = new ArrayList<>();
        for (String k : flowKey) {
            if (!k.equals("__START_AT") && !k.equals("__SYSTEM_START_AT")) {
                keys.add(k);
            }
        }
        List<String> columns = new ArrayList<>();
        for (String c : target.partitionedBy()) {
            String key = keys.stream().filter(k -> k.equalsIgnoreCase(c)).findFirst().orElse(null);
            if (key == null) {
                throw new FlowSyntaxException(
                        target.line(),
                        "PARTITIONED BY",
                        "column "
                                + c
                                + " is not one of the flow's KEYS ("
                                + String.join(", ", keys)
                                + "): a partition must hold each key's whole history, so"
                                + " partition by key columns, or remove the clause");
            }
            columns.add(key);
        }
        if (existing != null && !existing.equals(columns)) {
            throw new FlowSyntaxException(
                    target.line(),
                    "PARTITIONED BY",
                    target.name()
                            + " exists, partitioned by "
                            + existing
                            + ", not "
                            + columns
                            + "; a flow uses an existing table as it is: match its"
                            + " partitions, or remove the clause");
        }
        List<String> quoted = new ArrayList<>();
        columns.forEach(c -> quoted.add(FlowPlanner.quote(c)));
        return " PARTITIONED BY (" + String.join(", ", quoted) + ")";
    }
}
