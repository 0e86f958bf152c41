package dev.autocdc.job.plan;

import static dev.autocdc.job.plan.FlowPlanner.quote;
import static dev.autocdc.job.plan.FlowPlanner.quoteName;
import static dev.autocdc.job.plan.FlowPlanner.rootMessage;

import dev.autocdc.job.flow.FlowSyntaxException;
import dev.autocdc.job.source.SourceDecoding;
import dev.autocdc.operators.core.AutoCdcFlow;
import dev.autocdc.operators.flink.spec.ControlColumn;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.spec.FlowMapping;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;

/**
 * The Flink SQL query that turns a flow's source into the engine's input ({@link
 * EngineSpec#inputType()}). Its columns, in order:
 *
 * <ol>
 *   <li>the source columns the target keeps ({@link FlowMapping#kept()});
 *   <li>the control columns, named under the flow's control prefix ({@link
 *       ControlColumn#columnName(String)}): the sequence (a ROW for a struct sequence), the system
 *       sequence, the delete and truncate conditions, the clause whose CAST failed, the COLUMNS TO
 *       UPDATE list, the record's Kafka coordinates, the mark of a snapshot row refused before the
 *       keyed exchange, and the source columns the target leaves out as one ROW (so that a dead
 *       letter's payload is the whole record);
 *   <li>for a source decoded by the flow ({@link SourceDecoding}), last, the record's bytes, which
 *       {@code FlowJob} checks and drops before the engine.
 * </ol>
 *
 * Each condition is checked to be BOOLEAN Flink SQL over the source, and each CAST in it becomes a
 * TRY_CAST whose failure makes the record a dead letter naming the clause ({@link CastGuard}).
 */
final class InputProjection {
    private InputProjection() {}

    /**
     * The query over {@code decoded}'s view when the flow decodes its source, else over the source.
     *
     * @throws FlowSyntaxException naming the clause of a condition that is not BOOLEAN Flink SQL
     */
    static String select(
            StreamTableEnvironment tEnv,
            AutoCdcFlow flow,
            FlowMapping mapping,
            ResolvedSchema source,
            String prefix,
            SourceDecoding.Decoded decoded,
            boolean erasable) {
        StringBuilder select = new StringBuilder("SELECT ");
        for (String c : mapping.kept()) {
            select.append(quote(c)).append(", ");
        }
        select.append(sequenceExpression(flow, mapping, source))
                .append(" AS ")
                .append(quote(ControlColumn.SEQUENCE.columnName(prefix)));
        if (mapping.systemSequence() != null) {
            as(
                    select,
                    quote(mapping.systemSequence()),
                    prefix,
                    ControlColumn.SYSTEM_SEQUENCE.columnName());
        }
        conditions(select, tEnv, flow, prefix);
        if (mapping.columnsToUpdate() != null) {
            as(
                    select,
                    quote(mapping.columnsToUpdate()),
                    prefix,
                    ControlColumn.COLUMNS_TO_UPDATE.columnName());
        }
        if (erasable) { // the flow's own rows erase nothing; Erasures' rows set it
            as(select, "CAST(NULL AS BOOLEAN)", prefix, ControlColumn.ERASE.columnName());
        }
        coordinates(select, source, prefix, decoded);
        if (decoded != null && decoded.refused() != null) {
            as(select, quote(decoded.refused()), prefix, ControlColumn.REFUSED.columnName());
        }
        String record = recordExpression(mapping, source);
        if (record != null) {
            as(select, record, prefix, ControlColumn.RECORD.columnName());
        }
        if (decoded != null) { // last: the record's bytes, checked and dropped by FlowJob
            select.append(", ").append(quote(decoded.raw()));
        }
        select.append(" FROM ")
                .append(decoded == null ? quoteName(flow.source()) : quote(decoded.view()));
        return select.toString();
    }

    /**
     * Appends the delete, truncate and snapshot-end conditions the flow has, each CAST in them a
     * TRY_CAST, and the clause whose CAST failed, which makes the record a dead letter naming it
     * ({@link CastGuard}).
     */
    private static void conditions(
            StringBuilder select, StreamTableEnvironment tEnv, AutoCdcFlow flow, String prefix) {
        StringBuilder castFailed = new StringBuilder();
        String[][] conditions = {
            {flow.applyAsDeletes(), "APPLY AS DELETE WHEN", ControlColumn.DELETE.columnName()},
            {
                flow.applyAsTruncates(),
                "APPLY AS TRUNCATE WHEN",
                ControlColumn.TRUNCATE.columnName()
            },
            {
                flow.applyAsSnapshotEnd(),
                "APPLY AS SNAPSHOT END WHEN",
                ControlColumn.SNAPSHOT_END.columnName()
            }
        };
        for (String[] c : conditions) {
            if (c[0] != null) {
                CastGuard.Guarded guarded = condition(tEnv, flow, c[0], c[1]);
                as(select, "(" + guarded.condition() + ")", prefix, c[2]);
                whenFailed(castFailed, guarded, c[1]);
            }
        }
        if (castFailed.length() > 0) {
            as(
                    select,
                    "CASE" + castFailed + " END",
                    prefix,
                    ControlColumn.CAST_FAILED.columnName());
        }
    }

    /**
     * Appends Kafka's coordinates of each record, for its dead letters: the decoded view's own
     * columns, else the source's metadata columns if it declares them (which stay data of the
     * target), as the control columns in their own types, whatever type the source declared (a
     * BIGINT partition).
     */
    private static void coordinates(
            StringBuilder select,
            ResolvedSchema source,
            String prefix,
            SourceDecoding.Decoded decoded) {
        Map<String, String> coordinates = new LinkedHashMap<>(); // column -> control column
        if (decoded != null) {
            for (String c : decoded.coordinates()) {
                coordinates.put(c, c);
            }
        } else {
            for (Column c : source.getColumns()) {
                if (c instanceof Column.MetadataColumn m) {
                    String as =
                            switch (m.getMetadataKey().orElse(c.getName())) {
                                case "topic" -> ControlColumn.TOPIC.columnName();
                                case "partition" -> ControlColumn.PARTITION.columnName();
                                case "offset" -> ControlColumn.OFFSET.columnName();
                                default -> null;
                            };
                    if (as != null) {
                        coordinates.put(c.getName(), ControlColumn.withPrefix(prefix, as));
                    }
                }
            }
        }
        Map<String, String> coordinateTypes =
                Map.of(
                        ControlColumn.TOPIC.columnName(prefix), "STRING",
                        ControlColumn.PARTITION.columnName(prefix), "INT",
                        ControlColumn.OFFSET.columnName(prefix), "BIGINT");
        for (Map.Entry<String, String> c : coordinates.entrySet()) {
            select.append(", CAST(")
                    .append(quote(c.getKey()))
                    .append(" AS ")
                    .append(coordinateTypes.get(c.getValue()))
                    .append(") AS ")
                    .append(quote(c.getValue()));
        }
    }

    /** Appends {@code , <expression> AS <the control column>}. */
    private static void as(StringBuilder select, String expression, String prefix, String control) {
        select.append(", ")
                .append(expression)
                .append(" AS ")
                .append(quote(ControlColumn.withPrefix(prefix, control)));
    }

    /**
     * The source columns the target leaves out, as one ROW, so that a dead letter's payload is the
     * whole record (semantics §11); null when the target keeps them all.
     */
    private static String recordExpression(FlowMapping mapping, ResolvedSchema source) {
        List<String> left = new ArrayList<>();
        for (Column c : source.getColumns()) {
            if (!mapping.kept().contains(c.getName())) {
                left.add(c.getName());
            }
        }
        return left.isEmpty() ? null : rowExpression(left, source);
    }

    /** {@code CAST(ROW(a, b) AS ROW<a T, b T>)}: a ROW of source columns that keeps their names. */
    private static String rowExpression(List<String> columns, ResolvedSchema source) {
        StringBuilder row = new StringBuilder("CAST(ROW(");
        StringBuilder type = new StringBuilder("ROW<");
        for (int i = 0; i < columns.size(); i++) {
            String name = columns.get(i);
            LogicalType t = source.getColumn(name).orElseThrow().getDataType().getLogicalType();
            if (i > 0) {
                row.append(", ");
                type.append(", ");
            }
            row.append(quote(name));
            type.append(quote(name)).append(' ').append(t.copy(true).asSerializableString());
        }
        return row.append(") AS ").append(type).append(">)").toString();
    }

    private static String sequenceExpression(
            AutoCdcFlow flow, FlowMapping mapping, ResolvedSchema source) {
        if (!flow.sequenceIsStruct()) {
            return quote(mapping.sequence().get(0));
        }
        return rowExpression(mapping.sequence(), source);
    }

    private static void whenFailed(StringBuilder cases, CastGuard.Guarded g, String clause) {
        if (g.anyFailed() != null) {
            // only when the condition came out null: a CAST in a branch that CASE, AND or OR never
            // evaluated (kind = 'n' AND CAST(v AS INT) = 0) cannot have failed the record
            cases.append(" WHEN (")
                    .append(g.condition())
                    .append(") IS NULL AND ")
                    .append(g.anyFailed())
                    .append(" THEN '")
                    .append(clause)
                    .append("'");
        }
    }

    /**
     * Checks that a condition is a boolean expression over the source, and guards its CASTs ({@link
     * CastGuard}).
     */
    private static CastGuard.Guarded condition(
            StreamTableEnvironment tEnv, AutoCdcFlow flow, String expression, String clause) {
        Table t;
        try {
            t = tEnv.sqlQuery("SELECT (" + expression + ") FROM " + quoteName(flow.source()));
        } catch (RuntimeException e) {
            throw new FlowSyntaxException(
                    flow.line(),
                    clause,
                    "the condition "
                            + expression
                            + " is not valid Flink SQL over "
                            + flow.source()
                            + ": "
                            + rootMessage(e));
        }
        LogicalType type = t.getResolvedSchema().getColumns().get(0).getDataType().getLogicalType();
        if (type.getTypeRoot() != LogicalTypeRoot.BOOLEAN) {
            throw new FlowSyntaxException(
                    flow.line(),
                    clause,
                    "the condition "
                            + expression
                            + " is "
                            + type
                            + ", not BOOLEAN; write a comparison such as operation = 'DELETE'");
        }
        return CastGuard.guard(expression);
    }
}
