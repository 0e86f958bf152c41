package dev.autocdc.job.plan;

import dev.autocdc.job.flow.FlowScript;
import dev.autocdc.job.flow.FlowSyntaxException;
import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.OutputMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.api.internal.TableEnvironmentInternal;
import org.apache.flink.table.catalog.CatalogManager;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.catalog.UniqueConstraint;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeCasts;
import org.apache.flink.types.RowKind;

/**
 * A flow's target as Flink resolves it: creates a target that has a connector in the catalog (its
 * declared columns, or the flow's), and reads back what the catalog holds, not the DDL's text: the
 * primary key, the columns, and the changelog its sink accepts. Checks them against the flow (SPEC
 * §3-5), so that {@code validate} refuses a target an upsert sink would collapse or Flink would
 * refuse at its first insert. A target with columns and no connector is resolved under a scratch
 * name with the {@code blackhole} connector, for the same checks.
 *
 * <p>The changelog the flow emits: the setting {@code changelog-mode} if given; else upsert when
 * the sink takes no {@code -U} rows (upsert-kafka, JDBC) or the table has a primary key; else
 * retract. A sink that takes inserts only is refused.
 */
final class DeclaredTarget {
    private final List<String> primaryKey;
    private final ChangelogMode sinkMode;

    private DeclaredTarget(List<String> primaryKey, ChangelogMode sinkMode) {
        this.primaryKey = primaryKey;
        this.sinkMode = sinkMode;
    }

    /** The flow's output mode: the setting's, else the one the target's sink and key call for. */
    OutputMode outputMode(Optional<OutputMode> setting) {
        if (setting.isPresent()) {
            return setting.get();
        }
        boolean upsertSink =
                sinkMode != null
                        && !sinkMode.contains(RowKind.UPDATE_BEFORE)
                        && sinkMode.contains(RowKind.UPDATE_AFTER);
        return upsertSink || primaryKey != null ? OutputMode.UPSERT : OutputMode.RETRACT;
    }

    /**
     * Creates (connector) or resolves (columns only) the target, and checks its columns and key
     * against the flow's.
     *
     * @param flowTarget the target row type the flow produces
     * @param flowKey the target's primary key by SPEC §3-5
     */
    static DeclaredTarget resolve(
            StreamTableEnvironment tEnv,
            FlowScript.TargetTable target,
            TargetType type,
            RowType flowTarget,
            List<String> flowKey) {
        if (!target.hasConnector() && target.columns() == null) {
            return new DeclaredTarget(null, null);
        }
        boolean scratch = !target.hasConnector();
        String name = scratch ? "__autocdc_declared_" + Math.abs(target.name().hashCode()) : null;
        String columns = target.columns() == null ? columns(flowTarget, flowKey) : target.columns();
        String qualified = scratch ? FlowPlanner.quote(name) : FlowPlanner.quoteName(target.name());
        String options = scratch ? "'connector' = 'blackhole'" : target.options();
        String clause = "CREATE OR REFRESH STREAMING TABLE";
        try {
            tEnv.executeSql(
                    "CREATE "
                            + (scratch ? "TEMPORARY " : "")
                            + "TABLE "
                            + qualified
                            + " ("
                            + columns
                            + ") WITH ("
                            + options
                            + ")");
        } catch (RuntimeException e) {
            throw new FlowSyntaxException(
                    target.line(),
                    clause,
                    "Flink could not create the target table: " + FlowPlanner.rootMessage(e));
        }
        try {
            ResolvedCatalogTable table = lookUp(tEnv, qualified);
            ResolvedSchema schema = table.getResolvedSchema();
            List<String> key =
                    schema.getPrimaryKey().map(UniqueConstraint::getColumns).orElse(null);
            if (target.columns() != null) {
                checkColumns(target, schema, flowTarget);
                checkKey(target, type, key, flowKey);
            }
            ChangelogMode mode = scratch ? null : sinkMode(tEnv, target, table, qualified);
            if (mode != null && mode.containsOnly(RowKind.INSERT)) {
                throw new FlowSyntaxException(
                        target.line(),
                        clause,
                        "the connector of target "
                                + target.name()
                                + " takes inserts only, but an AUTO CDC target updates and"
                                + " deletes rows; use a connector that takes a changelog"
                                + " (upsert-kafka, jdbc, paimon) or a changelog format"
                                + " ('format' = 'debezium-json')");
            }
            return new DeclaredTarget(key, mode);
        } finally {
            if (scratch) {
                tEnv.executeSql("DROP TEMPORARY TABLE " + qualified);
            }
        }
    }

    /** The flow's own target columns, with its primary key. */
    private static String columns(RowType flowTarget, List<String> flowKey) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < flowTarget.getFieldCount(); i++) {
            String n = flowTarget.getFieldNames().get(i);
            LogicalType t = flowTarget.getTypeAt(i);
            b.append(FlowPlanner.quote(n))
                    .append(' ')
                    .append((flowKey.contains(n) ? t.copy(false) : t).asSerializableString())
                    .append(", ");
        }
        b.append("PRIMARY KEY (");
        for (int i = 0; i < flowKey.size(); i++) {
            b.append(i > 0 ? ", " : "").append(FlowPlanner.quote(flowKey.get(i)));
        }
        return b.append(") NOT ENFORCED").toString();
    }

    private static ResolvedCatalogTable lookUp(StreamTableEnvironment tEnv, String qualified) {
        CatalogManager catalogs = ((TableEnvironmentInternal) tEnv).getCatalogManager();
        ObjectIdentifier id =
                catalogs.qualifyIdentifier(
                        ((TableEnvironmentInternal) tEnv).getParser().parseIdentifier(qualified));
        return catalogs.getTableOrError(id).getResolvedTable();
    }

    /** The changelog the sink accepts, asked of the connector's factory as the planner would. */
    private static ChangelogMode sinkMode(
            StreamTableEnvironment tEnv,
            FlowScript.TargetTable target,
            ResolvedCatalogTable table,
            String qualified) {
        try {
            CatalogManager catalogs = ((TableEnvironmentInternal) tEnv).getCatalogManager();
            ObjectIdentifier id =
                    catalogs.qualifyIdentifier(
                            ((TableEnvironmentInternal) tEnv)
                                    .getParser()
                                    .parseIdentifier(qualified));
            DynamicTableSink sink =
                    FactoryUtil.createDynamicTableSink(
                            null,
                            id,
                            table,
                            Map.of(),
                            tEnv.getConfig(),
                            Thread.currentThread().getContextClassLoader(),
                            false);
            return sink.getChangelogMode(ChangelogMode.all());
        } catch (RuntimeException e) {
            throw new FlowSyntaxException(
                    target.line(),
                    "CREATE OR REFRESH STREAMING TABLE",
                    "Flink could not open target "
                            + target.name()
                            + " for writing: "
                            + FlowPlanner.rootMessage(e));
        }
    }

    private static void checkColumns(
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

    private static void checkKey(
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
}
