package dev.autocdc.job.plan;

import dev.autocdc.job.flow.FlowScript;
import dev.autocdc.job.flow.FlowSyntaxException;
import dev.autocdc.job.plan.PlannedFlow.TargetKind;
import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.spec.OutputMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.api.internal.TableEnvironmentInternal;
import org.apache.flink.table.catalog.Catalog;
import org.apache.flink.table.catalog.CatalogManager;
import org.apache.flink.table.catalog.ContextResolvedTable;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.catalog.UniqueConstraint;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;

/**
 * A flow's target as Flink resolves it: creates a target that has a connector in the catalog (its
 * declared columns, or the flow's; a temporary table, except in a catalog that makes its own
 * tables, such as Paimon's, where the table is permanent and one that exists is used as it is), and
 * reads back what the catalog holds, not the DDL's text: the primary key, the columns, and the
 * changelog its sink accepts. Checks them against the flow (semantics §3-5), so that {@code
 * validate} refuses a target an upsert sink would collapse or Flink would refuse at its first
 * insert. A target with columns and no connector is resolved under a scratch name with the {@code
 * blackhole} connector, for the same checks.
 *
 * <p>The changelog the flow emits: the setting {@code changelog-mode} if given; else upsert when
 * the sink takes no {@code -U} rows (upsert-kafka, JDBC) or the table has a primary key; else
 * retract. A sink that takes inserts only is refused.
 */
final class DeclaredTarget {
    private final List<String> primaryKey;
    private final ChangelogMode sinkMode;
    private final TargetKind kind;

    private DeclaredTarget(List<String> primaryKey, ChangelogMode sinkMode, TargetKind kind) {
        this.primaryKey = primaryKey;
        this.sinkMode = sinkMode;
        this.kind = kind;
    }

    /** Where the flow writes its target. */
    TargetKind kind() {
        return kind;
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
     * @param flowKey the target's primary key by semantics §3-5
     * @param createMissing whether a table missing from a catalog that makes its own tables is
     *     created; when not, it is planned as the first run would create it
     */
    static DeclaredTarget resolve(
            StreamTableEnvironment tEnv,
            FlowScript.TargetTable target,
            TargetType type,
            RowType flowTarget,
            List<String> flowKey,
            boolean createMissing) {
        String qualified = FlowPlanner.quoteName(target.name());
        TargetLocation.check(tEnv, target, identifier(tEnv, qualified));
        if (catalogMakesItsTables(tEnv, qualified)) {
            return inCatalog(tEnv, target, type, flowTarget, flowKey, qualified, createMissing);
        }
        refusePartitionsOutsideALake(target);
        if (!target.hasConnector() && target.columns() == null) {
            return new DeclaredTarget(null, null, TargetKind.KEPT_BY_CLI);
        }
        if (!target.hasConnector()) { // columns only
            return new DeclaredTarget(
                    declaredKey(tEnv, target, type, flowTarget, flowKey),
                    null,
                    TargetKind.KEPT_BY_CLI);
        }
        // a temporary table: the script is where the target is declared, so a run leaves nothing
        // behind in a persistent catalog, and a refused target is dropped again
        if (target.columns() != null) {
            create(
                    tEnv,
                    target,
                    "TEMPORARY TABLE " + qualified,
                    target.columns(),
                    target.options());
            try {
                List<String> key = checked(tEnv, target, type, flowTarget, flowKey, qualified);
                return new DeclaredTarget(
                        key, changelog(tEnv, target, qualified, null), TargetKind.CONNECTOR_TABLE);
            } catch (FlowSyntaxException refused) {
                tEnv.executeSql("DROP TEMPORARY TABLE " + qualified);
                throw refused;
            }
        }
        // the flow's own columns: an upsert sink (upsert-kafka, JDBC) takes them with the flow's
        // key; any other sink without a key, and the flow retracts
        create(
                tEnv,
                target,
                "TEMPORARY TABLE " + qualified,
                columns(flowTarget, flowKey),
                target.options());
        RuntimeException withKey = null;
        try {
            ChangelogMode mode = sinkMode(tEnv, qualified);
            if (!mode.contains(RowKind.UPDATE_BEFORE) && mode.contains(RowKind.UPDATE_AFTER)) {
                return new DeclaredTarget(flowKey, mode, TargetKind.CONNECTOR_TABLE);
            }
        } catch (RuntimeException e) {
            withKey = e; // perhaps a connector that takes no primary key: tried without one
        }
        tEnv.executeSql("DROP TEMPORARY TABLE " + qualified);
        create(
                tEnv,
                target,
                "TEMPORARY TABLE " + qualified,
                columns(flowTarget, null),
                target.options());
        try {
            return new DeclaredTarget(
                    null, changelog(tEnv, target, qualified, withKey), TargetKind.CONNECTOR_TABLE);
        } catch (FlowSyntaxException refused) {
            tEnv.executeSql("DROP TEMPORARY TABLE " + qualified);
            throw refused;
        }
    }

    private static final String BLACKHOLE = "'connector' = 'blackhole'";

    /**
     * Declared columns checked without their table: resolved under a scratch name with the {@code
     * blackhole} connector, then dropped; returns the declared key (null: none).
     */
    private static List<String> declaredKey(
            StreamTableEnvironment tEnv,
            FlowScript.TargetTable target,
            TargetType type,
            RowType flowTarget,
            List<String> flowKey) {
        String scratch =
                FlowPlanner.quote("__autocdc_declared_" + Math.abs(target.name().hashCode()));
        create(tEnv, target, "TEMPORARY TABLE " + scratch, target.columns(), BLACKHOLE);
        try {
            return checked(tEnv, target, type, flowTarget, flowKey, scratch);
        } finally {
            tEnv.executeSql("DROP TEMPORARY TABLE " + scratch);
        }
    }

    /** PARTITIONED BY applies to a table the flow creates in a lake catalog only. */
    private static void refusePartitionsOutsideALake(FlowScript.TargetTable target) {
        if (target.partitionedBy() != null) {
            throw new FlowSyntaxException(
                    target.line(),
                    "PARTITIONED BY",
                    "partitions a table the flow creates in a catalog that makes its own tables"
                            + " (Paimon, Iceberg); "
                            + target.name()
                            + " is not in one: remove the clause, or name the target in such a"
                            + " catalog (lake.db.table)");
        }
    }

    /**
     * Whether the target's catalog makes its tables with its own factory (Paimon, Hive, Iceberg): a
     * table there has no {@code connector} option, and only a permanent one reaches that factory.
     */
    private static boolean catalogMakesItsTables(StreamTableEnvironment tEnv, String qualified) {
        CatalogManager catalogs = ((TableEnvironmentInternal) tEnv).getCatalogManager();
        return catalogs.getCatalog(identifier(tEnv, qualified).getCatalogName())
                .flatMap(Catalog::getFactory)
                .isPresent();
    }

    /**
     * A target in a catalog that makes its own tables: the table that history lives in, so it
     * outlives the flow. One that exists is used as it is (its columns and key checked, its options
     * not changed); a missing one is created, with the declared columns or the flow's own and the
     * flow's primary key (semantics §3-5), and dropped again when refused. Unless it may not be
     * created: then the declared columns are checked without it, and its sink is taken to accept
     * every change, as the lakehouse catalogs' sinks do.
     */
    private static DeclaredTarget inCatalog(
            StreamTableEnvironment tEnv,
            FlowScript.TargetTable target,
            TargetType type,
            RowType flowTarget,
            List<String> flowKey,
            String qualified,
            boolean createMissing) {
        CatalogManager catalogs = ((TableEnvironmentInternal) tEnv).getCatalogManager();
        boolean exists = catalogs.getTable(identifier(tEnv, qualified)).isPresent();
        String partitions =
                TargetSchemaCheck.partitions(
                        target,
                        flowKey,
                        exists ? lookUp(tEnv, qualified).getPartitionKeys() : null);
        if (!exists && !createMissing) {
            List<String> key =
                    target.columns() == null
                            ? flowKey
                            : declaredKey(tEnv, target, type, flowTarget, flowKey);
            return new DeclaredTarget(key, ChangelogMode.all(), TargetKind.MISSING_CATALOG_TABLE);
        }
        if (!exists) {
            create(
                    tEnv,
                    target,
                    "TABLE " + qualified,
                    target.columns() != null ? target.columns() : columns(flowTarget, flowKey),
                    partitions,
                    target.options());
        }
        try {
            List<String> key = checked(tEnv, target, type, flowTarget, flowKey, qualified);
            return new DeclaredTarget(
                    key, changelog(tEnv, target, qualified, null), TargetKind.CATALOG_TABLE);
        } catch (FlowSyntaxException refused) {
            if (!exists) {
                tEnv.executeSql("DROP TABLE " + qualified);
            }
            throw refused;
        }
    }

    private static void create(
            StreamTableEnvironment tEnv,
            FlowScript.TargetTable target,
            String what,
            String columns,
            String options) {
        create(tEnv, target, what, columns, "", options);
    }

    /** {@code CREATE <what> (<columns>)<partitions> [WITH (<options>)]}. */
    private static void create(
            StreamTableEnvironment tEnv,
            FlowScript.TargetTable target,
            String what,
            String columns,
            String partitions,
            String options) {
        try {
            tEnv.executeSql(
                    "CREATE "
                            + what
                            + " ("
                            + columns
                            + ")"
                            + partitions
                            + (options == null ? "" : " WITH (" + options + ")"));
        } catch (RuntimeException e) {
            throw new FlowSyntaxException(
                    target.line(),
                    "CREATE OR REFRESH STREAMING TABLE",
                    "Flink could not create the target table: " + FlowPlanner.rootMessage(e));
        }
    }

    /** Checks a declared target's columns and key; returns the key (null: none). */
    private static List<String> checked(
            StreamTableEnvironment tEnv,
            FlowScript.TargetTable target,
            TargetType type,
            RowType flowTarget,
            List<String> flowKey,
            String qualified) {
        ResolvedSchema schema = lookUp(tEnv, qualified).getResolvedSchema();
        List<String> key = schema.getPrimaryKey().map(UniqueConstraint::getColumns).orElse(null);
        TargetSchemaCheck.columns(target, schema, flowTarget);
        TargetSchemaCheck.key(target, type, key, flowKey);
        return key;
    }

    /**
     * The sink's changelog mode; a sink that cannot open, or takes inserts only, is refused.
     *
     * @param earlier the failure of an earlier attempt (with the flow's key), reported rather than
     *     this one's when both fail, since it is the likelier cause (null: none)
     */
    private static ChangelogMode changelog(
            StreamTableEnvironment tEnv,
            FlowScript.TargetTable target,
            String qualified,
            RuntimeException earlier) {
        ChangelogMode mode;
        try {
            mode = sinkMode(tEnv, qualified);
        } catch (RuntimeException e) {
            throw new FlowSyntaxException(
                    target.line(),
                    "CREATE OR REFRESH STREAMING TABLE",
                    "Flink could not open target "
                            + target.name()
                            + " for writing: "
                            + FlowPlanner.rootMessage(earlier != null ? earlier : e));
        }
        if (mode.containsOnly(RowKind.INSERT)) {
            throw new FlowSyntaxException(
                    target.line(),
                    "CREATE OR REFRESH STREAMING TABLE",
                    "the connector of target "
                            + target.name()
                            + " takes inserts only, but an AUTO CDC target updates and deletes"
                            + " rows; use a connector that takes a changelog (upsert-kafka, jdbc,"
                            + " paimon) or a changelog format ('format' = 'debezium-json')");
        }
        return mode;
    }

    /** The flow's own target columns, with its primary key unless null. */
    private static String columns(RowType flowTarget, List<String> flowKey) {
        List<String> columns = new ArrayList<>();
        for (int i = 0; i < flowTarget.getFieldCount(); i++) {
            String n = flowTarget.getFieldNames().get(i);
            LogicalType t = flowTarget.getTypeAt(i);
            boolean key = flowKey != null && flowKey.contains(n);
            columns.add(
                    FlowPlanner.quote(n) + " " + (key ? t.copy(false) : t).asSerializableString());
        }
        if (flowKey != null) {
            List<String> key = new ArrayList<>();
            flowKey.forEach(k -> key.add(FlowPlanner.quote(k)));
            columns.add("PRIMARY KEY (" + String.join(", ", key) + ") NOT ENFORCED");
        }
        return String.join(", ", columns);
    }

    private static ObjectIdentifier identifier(StreamTableEnvironment tEnv, String qualified) {
        return ((TableEnvironmentInternal) tEnv)
                .getCatalogManager()
                .qualifyIdentifier(
                        ((TableEnvironmentInternal) tEnv).getParser().parseIdentifier(qualified));
    }

    private static ResolvedCatalogTable lookUp(StreamTableEnvironment tEnv, String qualified) {
        CatalogManager catalogs = ((TableEnvironmentInternal) tEnv).getCatalogManager();
        return catalogs.getTableOrError(identifier(tEnv, qualified)).getResolvedTable();
    }

    /**
     * The changelog the sink accepts, asked of the factory the planner would use: the catalog's own
     * when it has one (Paimon), else the one the {@code connector} option names.
     */
    private static ChangelogMode sinkMode(StreamTableEnvironment tEnv, String qualified) {
        CatalogManager catalogs = ((TableEnvironmentInternal) tEnv).getCatalogManager();
        ObjectIdentifier id = identifier(tEnv, qualified);
        ContextResolvedTable table = catalogs.getTableOrError(id);
        DynamicTableSinkFactory catalogFactory =
                table.getCatalog()
                        .flatMap(Catalog::getFactory)
                        .filter(DynamicTableSinkFactory.class::isInstance)
                        .map(DynamicTableSinkFactory.class::cast)
                        .orElse(null);
        DynamicTableSink sink =
                FactoryUtil.createDynamicTableSink(
                        catalogFactory,
                        id,
                        table.getResolvedTable(),
                        Map.of(),
                        tEnv.getConfig(),
                        Thread.currentThread().getContextClassLoader(),
                        table.isTemporary());
        return sink.getChangelogMode(ChangelogMode.all());
    }
}
