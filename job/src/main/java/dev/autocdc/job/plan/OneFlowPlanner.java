package dev.autocdc.job.plan;

import static dev.autocdc.job.plan.FlowPlanner.quoteName;
import static dev.autocdc.job.plan.FlowPlanner.rootMessage;

import dev.autocdc.job.flow.ClauseLines;
import dev.autocdc.job.flow.FlowScript;
import dev.autocdc.job.flow.FlowSyntaxException;
import dev.autocdc.job.source.SnapshotWatermark;
import dev.autocdc.job.source.SourceDecoding;
import dev.autocdc.operators.core.AutoCdcFlow;
import dev.autocdc.operators.core.FlowDefinitionException;
import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.spec.ControlColumn;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.spec.FlowMapping;
import dev.autocdc.operators.flink.spec.OutputMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.catalog.WatermarkSpec;
import org.apache.flink.table.types.logical.RowType;

/**
 * Plans one flow whose source exists in the table environment: resolves the flow against the
 * source's schema, decodes the source when its bad records are dead letters ({@link
 * SourceDecoding}), builds the engine's input projection ({@link InputProjection}) and {@link
 * EngineSpec}, and resolves the declared target ({@link DeclaredTarget}). A mistake fails with a
 * {@link FlowSyntaxException} on the flow's line, naming the clause; one in a table the flow reads
 * ({@link SourceFormats}, {@link SourcePaths}) on the table's line, one in a condition's value
 * ({@link ConditionLiterals}) on the value's. The paths are checked last, once the flow itself is
 * known to be right.
 */
final class OneFlowPlanner {
    private final StreamTableEnvironment tEnv;
    private final boolean createsTargets;

    /** Which flows share their source's read, for the flows planned by this planner. */
    private final SourceSharing sharing;

    /** The script line of each key set with SET, for messages; filled as the script is read. */
    private final Map<String, Integer> setLines;

    /** The script line of each table the script creates, for messages; filled likewise. */
    private final Map<ObjectIdentifier, Integer> tableLines;

    /**
     * @param createsTargets as for {@link FlowPlanner#FlowPlanner(StreamTableEnvironment, boolean)}
     */
    OneFlowPlanner(
            StreamTableEnvironment tEnv,
            boolean createsTargets,
            Map<String, Integer> setLines,
            Map<ObjectIdentifier, Integer> tableLines) {
        this.tEnv = tEnv;
        this.createsTargets = createsTargets;
        this.sharing = new SourceSharing(tEnv);
        this.setLines = setLines;
        this.tableLines = tableLines;
    }

    /**
     * @param conditionLines the script line each of the flow's conditions starts on, by clause
     *     ({@link FlowScript.FlowItem#conditionLines}); empty for a flow of the Java builder
     * @param mayShare whether the flow may share its source's read with the flows planned before it
     *     ({@link SourceSharing}); false for a flow of the Java builder, planned alone
     */
    PlannedFlow plan(
            AutoCdcFlow flow,
            FlowScript.TargetTable target,
            FlowOptions options,
            Map<String, Integer> conditionLines,
            boolean mayShare) {
        ResolvedSchema source = sourceSchema(flow);
        List<ReadTables.ReadTable> read = ReadTables.of(tEnv, flow, tableLines);
        SourceFormats.check(read, flow.name());
        List<String> sourceColumns = new ArrayList<>();
        for (Column c : source.getColumns()) {
            sourceColumns.add(c.getName());
        }
        ConditionLiterals.check(tEnv, flow, sourceColumns, conditionLines);
        // Control columns are named under a prefix no source column uses, so every source column
        // stays data whatever its name (semantics §11).
        String prefix = ControlColumn.prefixAvoiding(sourceColumns);
        if (!options.decodesSource(flow.name())) {
            sharing.refuseLeaving(flow, options);
        }
        SourceDecoding.Decoded decoded =
                options.decodesSource(flow.name())
                        ? decode(flow, sourceColumns, options, mayShare, conditionLines)
                        : null;
        FlowMapping mapping = mapping(flow, source, sourceColumns, conditionLines);

        if (flow.fromSnapshot()) {
            SnapshotSources.check(tEnv, flow, source, decoded);
        }
        String erasures = options.erasuresTable(flow.name());
        String sql =
                InputProjection.select(
                        tEnv, flow, mapping, source, prefix, decoded, erasures != null);
        Table projection = projection(flow, sql);
        RowType projected =
                (RowType) projection.getResolvedSchema().toPhysicalRowDataType().getLogicalType();
        RowType input =
                decoded == null
                        ? projected
                        : new RowType(
                                projected.getFields().subList(0, projected.getFieldCount() - 1));

        EngineSpec spec =
                spec(flow, mapping, input, prefix, options, OutputMode.RETRACT, conditionLines);
        List<String> key = new ArrayList<>();
        for (int i : spec.targetPrimaryKey()) {
            key.add(spec.targetType().getFieldNames().get(i));
        }
        DeclaredTarget declared =
                DeclaredTarget.resolve(
                        tEnv, target, flow.storedAs(), spec.targetType(), key, createsTargets);
        if (erasures != null) {
            Erasures.check(tEnv, flow, erasures, spec, setLines);
        }
        OutputMode mode = declared.outputMode(options.changelogMode(flow.name()));
        if (mode != spec.outputMode()) {
            spec = spec(flow, mapping, input, prefix, options, mode, conditionLines);
        }
        SourcePaths.check(read, flow.name());
        return new PlannedFlow(
                flow,
                target,
                declared.kind(),
                spec,
                sql,
                projection,
                options,
                decoded == null ? null : decoded.letters(),
                decoded == null ? null : decoded.read());
    }

    /** The schema of the flow's source. */
    private ResolvedSchema sourceSchema(AutoCdcFlow flow) {
        try {
            return tEnv.from(quoteName(flow.source())).getResolvedSchema();
        } catch (RuntimeException e) {
            throw new FlowSyntaxException(
                    flow.line(),
                    "FROM",
                    "unknown source "
                            + flow.source()
                            + "; create it first (CREATE TABLE "
                            + flow.source()
                            + " (...) WITH (...)) or use an existing table or view");
        }
    }

    /**
     * The flow's Kafka or filesystem source read as bytes and decoded by a step of ours, so that a
     * record its format cannot read is a dead letter ({@link SourceDecoding}).
     */
    private SourceDecoding.Decoded decode(
            AutoCdcFlow flow,
            List<String> sourceColumns,
            FlowOptions options,
            boolean mayShare,
            Map<String, Integer> conditionLines) {
        try {
            return SourceDecoding.decode(
                    tEnv,
                    flow.name(),
                    flow.source(),
                    snapshotWatermark(flow, sourceColumns, conditionLines),
                    PlacingColumns.of(flow, sourceColumns),
                    sharing.reads(),
                    mayShare ? () -> sharing.sharing(flow, options) : null);
        } catch (RuntimeException e) {
            throw new FlowSyntaxException(
                    flow.line(),
                    "FROM",
                    "Flink could not read source "
                            + flow.source()
                            + " as bytes to decode: "
                            + rootMessage(e)
                            + " (SET 'autocdc."
                            + flow.name()
                            + ".bad-records' = 'fail' reads it as declared)");
        }
    }

    /** The flow's input projection, planned by Flink. */
    private Table projection(AutoCdcFlow flow, String sql) {
        try {
            return tEnv.sqlQuery(sql);
        } catch (RuntimeException e) {
            throw new FlowSyntaxException(
                    flow.line(),
                    "AUTO CDC",
                    "Flink could not plan the flow's input: " + rootMessage(e));
        }
    }

    /**
     * The flow's column clauses over its source; a watermark's time column times the snapshots of a
     * flow from snapshots, as the version does, so it is not data.
     */
    private static FlowMapping mapping(
            AutoCdcFlow flow,
            ResolvedSchema source,
            List<String> sourceColumns,
            Map<String, Integer> conditionLines) {
        try {
            return FlowMapping.of(
                    flow,
                    sourceColumns,
                    source.getWatermarkSpecs().stream()
                            .map(WatermarkSpec::getRowtimeAttribute)
                            .toList());
        } catch (FlowDefinitionException e) {
            throw new FlowSyntaxException(
                    ClauseLines.lineOf(conditionLines, e, flow.line()), e.clause(), e.detail());
        }
    }

    /**
     * The watermark of a flow from snapshots on an unbounded source: on the version, bitemporal the
     * system sequence; null for a change flow or a STRUCT version (complete at the end of a bounded
     * input only).
     */
    private static SnapshotWatermark snapshotWatermark(
            AutoCdcFlow flow, List<String> columns, Map<String, Integer> lines) {
        if (!flow.fromSnapshot() || flow.sequenceIsStruct()) {
            return null;
        }
        try {
            String column =
                    flow.storedAs() == TargetType.BITEMPORAL && flow.systemSequenceBy() != null
                            ? FlowMapping.resolve(
                                    columns, flow.systemSequenceBy(), "SYSTEM SEQUENCE BY")
                            : FlowMapping.resolve(columns, flow.sequenceBy().get(0), "SEQUENCE BY");
            String end =
                    flow.applyAsSnapshotEnd() == null
                            ? null
                            : CastGuard.guard(flow.applyAsSnapshotEnd()).condition();
            return new SnapshotWatermark(column, end);
        } catch (FlowDefinitionException e) {
            throw new FlowSyntaxException(
                    ClauseLines.lineOf(lines, e, flow.line()), e.clause(), e.detail());
        }
    }

    private static EngineSpec spec(
            AutoCdcFlow flow,
            FlowMapping mapping,
            RowType input,
            String prefix,
            FlowOptions options,
            OutputMode mode,
            Map<String, Integer> lines) {
        try {
            return mapping.engineSpec(
                    flow, input, prefix, options.engineSettings(flow.name()), mode);
        } catch (FlowDefinitionException e) {
            throw new FlowSyntaxException(
                    ClauseLines.lineOf(lines, e, flow.line()), e.clause(), e.detail());
        } catch (IllegalArgumentException e) {
            throw new FlowSyntaxException(flow.line(), "COLUMNS", e.getMessage());
        }
    }
}
