package dev.autocdc.job.plan;

import dev.autocdc.job.flow.FlowSyntaxException;
import dev.autocdc.operators.core.AutoCdcFlow;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.api.internal.TableEnvironmentInternal;
import org.apache.flink.table.catalog.CatalogManager;
import org.apache.flink.table.catalog.ContextResolvedTable;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.QueryOperationCatalogView;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.catalog.ResolvedCatalogView;

/**
 * The catalog tables a flow reads: its source, or the tables its source view reads (views in views
 * too, found in Flink's expanded query, which names each table in full), each with where a message
 * about it points: the line of the script's CREATE TABLE, or the flow's for a table the script does
 * not create.
 */
final class ReadTables {
    /** A table named in full in an expanded query: `catalog`.`database`.`table`. */
    private static final Pattern FULL_NAME =
            Pattern.compile(
                    "(?<![.`])`((?:[^`]|``)+)`\\.`((?:[^`]|``)+)`\\.`((?:[^`]|``)+)`(?![.`])");

    /** Views within views are followed this deep. */
    private static final int DEPTH = 8;

    private ReadTables() {}

    /**
     * A table the flow reads.
     *
     * @param name the table's name as messages give it (in full outside the current database)
     * @param table the table as Flink resolved it
     * @param line the script line messages point at
     * @param clause what messages name: CREATE TABLE name, or the flow's FROM
     */
    record ReadTable(String name, ResolvedCatalogTable table, int line, String clause) {
        Map<String, String> options() {
            return table.getOptions();
        }

        /** An error about the table, on its line. */
        FlowSyntaxException error(String message) {
            return new FlowSyntaxException(line, clause, message);
        }
    }

    /**
     * The tables {@code flow} reads; empty when its source is not in a catalog (planning says so).
     *
     * @param tableLines the script line of each table the script creates
     */
    static List<ReadTable> of(
            StreamTableEnvironment tEnv,
            AutoCdcFlow flow,
            Map<ObjectIdentifier, Integer> tableLines) {
        TableEnvironmentInternal internal = (TableEnvironmentInternal) tEnv;
        CatalogManager catalogs = internal.getCatalogManager();
        ObjectIdentifier source;
        try {
            source =
                    catalogs.qualifyIdentifier(internal.getParser().parseIdentifier(flow.source()));
        } catch (RuntimeException unreadable) {
            return List.of();
        }
        List<ReadTable> out = new ArrayList<>();
        collect(catalogs, source, flow, tableLines, out, new HashSet<>(), 0);
        return out;
    }

    private static void collect(
            CatalogManager catalogs,
            ObjectIdentifier id,
            AutoCdcFlow flow,
            Map<ObjectIdentifier, Integer> tableLines,
            List<ReadTable> out,
            Set<ObjectIdentifier> seen,
            int depth) {
        if (depth > DEPTH || !seen.add(id)) {
            return;
        }
        Object resolved;
        try {
            resolved =
                    catalogs.getTable(id).map(ContextResolvedTable::getResolvedTable).orElse(null);
        } catch (RuntimeException unresolvable) {
            return;
        }
        if (resolved instanceof ResolvedCatalogTable table) {
            String name = name(catalogs, id);
            Integer line = tableLines.get(id);
            out.add(
                    line == null
                            ? new ReadTable(name, table, flow.line(), "FROM " + flow.source())
                            : new ReadTable(name, table, line, "CREATE TABLE " + name));
        } else if (resolved instanceof ResolvedCatalogView view
                && !(view.getOrigin() instanceof QueryOperationCatalogView)) {
            // a view of SQL text (one of a DataStream, such as snapshots from a function, has none)
            Matcher m = FULL_NAME.matcher(view.getExpandedQuery());
            while (m.find()) {
                ObjectIdentifier read =
                        ObjectIdentifier.of(
                                unquote(m.group(1)), unquote(m.group(2)), unquote(m.group(3)));
                collect(catalogs, read, flow, tableLines, out, seen, depth + 1);
            }
        }
    }

    private static String unquote(String part) {
        return part.replace("``", "`");
    }

    private static String name(CatalogManager catalogs, ObjectIdentifier id) {
        boolean here =
                id.getCatalogName().equals(catalogs.getCurrentCatalog())
                        && id.getDatabaseName().equals(catalogs.getCurrentDatabase());
        return here ? id.getObjectName() : id.asSummaryString();
    }
}
