package dev.autocdc.job.cli;

import dev.autocdc.job.plan.PlannedFlow;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.catalog.Column;

/**
 * What {@code autocdc validate} prints for one planned flow: its clause, for a flow from snapshots
 * what makes a snapshot and when it is complete, the source and target schemas, the target's
 * primary key and changelog mode, where the target goes, and the engine's input query.
 */
public final class FlowReport {
    private FlowReport() {}

    /**
     * Prints the report of {@code flow}, planned in {@code tEnv} ({@code validate}, the SQL
     * procedure).
     */
    public static void print(PrintStream out, StreamTableEnvironment tEnv, PlannedFlow flow) {
        out.println(
                "flow "
                        + flow.flow().name()
                        + ": AUTO CDC INTO "
                        + flow.flow().target()
                        + (flow.flow().fromSnapshot()
                                ? " FROM SNAPSHOT(" + flow.flow().source() + ")"
                                : " FROM " + flow.flow().source())
                        + " STORED AS "
                        + flow.type());
        if (flow.flow().fromSnapshot()) {
            out.println(
                    "  snapshots: one per "
                            + (flow.flow().systemSequenceBy() == null
                                    ? "SEQUENCE BY value"
                                    : "SEQUENCE BY and SYSTEM SEQUENCE BY pair")
                            + "; complete at the end of a bounded source, or once every split's"
                            + " watermark has passed them"
                            + (flow.flow().applyAsSnapshotEnd() == null
                                    ? ""
                                    : " (end rows: " + flow.flow().applyAsSnapshotEnd() + ")"));
        }
        out.println("  source schema:");
        for (Column c : tEnvSchema(tEnv, flow.flow().source())) {
            out.println("    " + c.getName() + " " + c.getDataType());
        }
        out.println("  target schema:");
        var target = flow.spec().targetType();
        for (int i = 0; i < target.getFieldCount(); i++) {
            out.println(
                    "    "
                            + target.getFieldNames().get(i)
                            + " "
                            + target.getTypeAt(i).asSummaryString());
        }
        List<String> pk = new ArrayList<>();
        for (int i : flow.spec().targetPrimaryKey()) {
            pk.add(target.getFieldNames().get(i));
        }
        out.println("  primary key: (" + String.join(", ", pk) + ")");
        out.println(
                "  changelog mode: "
                        + flow.spec().outputMode().name().toLowerCase()
                        + (flow.spec().outputMode().name().equals("UPSERT")
                                ? " (+I, +U, -D)"
                                : " (+I, -U, +U, -D)"));
        out.println("  target: " + where(flow));
        if (flow.erasuresTable() != null) {
            out.println(
                    "  erasures: each row of "
                            + flow.erasuresTable()
                            + " erases its key (the key columns, by name)");
        }
        out.println("  engine input: " + flow.inputSql());
    }

    private static List<Column> tEnvSchema(StreamTableEnvironment tEnv, String source) {
        return tEnv.from(source.contains(".") ? source : "`" + source + "`")
                .getResolvedSchema()
                .getColumns();
    }

    /** Where the flow writes its target, as validate prints it. */
    private static String where(PlannedFlow flow) {
        String table = "table " + flow.target().name();
        return switch (flow.targetKind()) {
            case KEPT_BY_CLI -> "kept by the CLI (--materialize) or printed";
            case CONNECTOR_TABLE -> table + " (" + flow.target().options() + ")";
            case CATALOG_TABLE -> table + " in its catalog";
            case MISSING_CATALOG_TABLE ->
                    table
                            + " in its catalog, not there yet: run creates it with "
                            + (flow.target().columns() == null
                                    ? "the flow's columns and primary key"
                                    : "the declared columns");
        };
    }
}
