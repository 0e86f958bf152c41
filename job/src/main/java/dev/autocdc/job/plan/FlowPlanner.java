package dev.autocdc.job.plan;

import dev.autocdc.job.flow.FlowScript;
import dev.autocdc.job.flow.FlowSyntaxException;
import dev.autocdc.job.flow.ScriptSplitter;
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
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.types.logical.RowType;

/**
 * Turns a {@link FlowScript} into {@link PlannedFlow}s: runs the script's Flink SQL (sources,
 * views, SET), resolves each flow against its source's schema, checks every clause, and builds the
 * engine's input projection ({@link InputProjection}) and {@link EngineSpec}. Any mistake fails
 * here, before a job starts, with a {@link FlowSyntaxException} naming the line, the clause and the
 * fix.
 *
 * <p>Per-flow settings are read from the table configuration (set them with {@code SET} in the
 * script or {@code -D} on the command line) through {@link FlowOptions}, when the flow is planned;
 * a key under {@code autocdc.} that names no flow of the script or no setting fails the script.
 */
public final class FlowPlanner {
    private static final Pattern SET =
            Pattern.compile(
                    "(?is)SET\\s+('(?:[^']|'')*'|[\\w.\\-]+)\\s*=\\s*('(?:[^']|'')*'|\\S+)\\s*");

    private final StreamTableEnvironment tEnv;
    private final boolean createsTargets;
    private final List<String> inserts = new ArrayList<>();

    /** The script line of each key set with SET, for messages. */
    private final Map<String, Integer> setLines = new HashMap<>();

    /** The script's INSERT statements, to run in the flows' job. */
    public List<String> inserts() {
        return inserts;
    }

    private static String unquote(String s) {
        return s.startsWith("'") ? s.substring(1, s.length() - 1).replace("''", "'") : s;
    }

    public FlowPlanner(StreamTableEnvironment tEnv) {
        this(tEnv, true);
    }

    /**
     * @param createsTargets whether a target missing from a catalog that makes its own tables is
     *     created (run); false for validate, which changes nothing and reports it as missing
     */
    public FlowPlanner(StreamTableEnvironment tEnv, boolean createsTargets) {
        this.tEnv = tEnv;
        this.createsTargets = createsTargets;
    }

    /** Runs the script's SQL statements and plans every flow, in script order. */
    public List<PlannedFlow> plan(FlowScript script) {
        Map<String, FlowScript.TargetTable> targets = new HashMap<>();
        Set<String> targetsWithFlow = new HashSet<>();
        List<PlannedFlow> planned = new ArrayList<>();
        List<String> flowNames = new ArrayList<>();
        Map<String, Integer> flowLines = new HashMap<>();
        for (FlowScript.Item item : script.items()) {
            if (item instanceof FlowScript.FlowItem flowItem) {
                AutoCdcFlow flow = flowItem.flow();
                Integer first = flowLines.putIfAbsent(key(flow.name()), flow.line());
                if (first != null) {
                    throw new FlowSyntaxException(
                            flow.line(),
                            "CREATE FLOW",
                            "a flow named "
                                    + flow.name()
                                    + " is declared on line "
                                    + first
                                    + " already; name each flow once (the name is its state's"
                                    + " identity in savepoints and its settings' prefix)");
                }
                flowNames.add(flow.name());
            }
        }
        for (FlowScript.Item item : script.items()) {
            if (item instanceof FlowScript.SqlStatement sql) {
                // without comments: a statement is known by its first word, not by a comment
                String text = ScriptSplitter.stripComments(sql.sql()).strip();
                Matcher set = SET.matcher(text);
                if (set.matches()) {
                    tEnv.getConfig()
                            .getConfiguration()
                            .setString(unquote(set.group(1)), unquote(set.group(2)));
                    setLines.put(unquote(set.group(1)), sql.line());
                    continue;
                }
                if (text.regionMatches(true, 0, "SET", 0, 3)
                        && (text.length() == 3 || Character.isWhitespace(text.charAt(3)))) {
                    throw new FlowSyntaxException(sql.line(), "SET", "write SET 'key' = 'value'");
                }
                if (text.regionMatches(true, 0, "INSERT", 0, 6)) {
                    inserts.add(text); // runs in the same job as the flows
                    continue;
                }
                try {
                    tEnv.executeSql(text);
                } catch (RuntimeException e) {
                    throw new FlowSyntaxException(
                            sql.line(),
                            "SQL",
                            "Flink could not run the statement: " + rootMessage(e));
                }
            } else if (item instanceof FlowScript.TargetTable target) {
                if (targets.put(key(target.name()), target) != null) {
                    throw new FlowSyntaxException(
                            target.line(),
                            "CREATE OR REFRESH STREAMING TABLE",
                            "target " + target.name() + " is declared twice; keep one declaration");
                }
            } else if (item instanceof FlowScript.FlowItem flowItem) {
                AutoCdcFlow flow = flowItem.flow();
                FlowScript.TargetTable target = targets.get(key(flow.target()));
                if (target == null) {
                    throw new FlowSyntaxException(
                            flow.line(),
                            "AUTO CDC INTO",
                            "no target "
                                    + flow.target()
                                    + " is declared before the flow; add CREATE OR REFRESH"
                                    + " STREAMING TABLE "
                                    + flow.target()
                                    + ";");
                }
                if (!targetsWithFlow.add(key(flow.target()))) {
                    throw new FlowSyntaxException(
                            flow.line(),
                            "AUTO CDC INTO",
                            "target "
                                    + flow.target()
                                    + " already has an AUTO CDC flow; a target takes one AUTO CDC"
                                    + " flow (use a UNION ALL view as the source)");
                }
                planned.add(
                        plan(
                                flow,
                                target,
                                FlowOptions.read(tEnv.getConfig(), flowNames, setLines)));
            }
        }
        // The dead-letter and late-event tables are wired after the whole script, so they may be
        // set anywhere in it; a setting the flow took when it was planned may not come after the
        // flow.
        FlowOptions whole = FlowOptions.read(tEnv.getConfig(), flowNames, setLines);
        for (int i = 0; i < planned.size(); i++) {
            PlannedFlow p = planned.get(i);
            String name = p.flow().name();
            whole.refuseSetAfter(name, p.flow().line());
            LetterTables.check(
                    tEnv,
                    name,
                    FlowOptions.DEAD_LETTER_TABLE.key(),
                    whole.deadLetterTable(name),
                    setLines);
            LetterTables.check(
                    tEnv,
                    name,
                    FlowOptions.LATE_EVENTS_TABLE.key(),
                    whole.lateEventsTable(name),
                    setLines);
            planned.set(
                    i,
                    new PlannedFlow(
                            p.flow(),
                            p.target(),
                            p.targetKind(),
                            p.spec(),
                            p.inputSql(),
                            p.input(),
                            whole,
                            p.sourceLetters(),
                            p.carriesBytes()));
        }
        if (planned.isEmpty()) {
            throw new FlowSyntaxException(
                    1,
                    "CREATE FLOW",
                    "the script has no AUTO CDC flow; add CREATE FLOW name AS AUTO CDC INTO target"
                            + " FROM STREAM(source) KEYS (...) SEQUENCE BY ...");
        }
        return planned;
    }

    /**
     * Plans one flow (its source must exist in the table environment), with the settings of the
     * table configuration under {@code autocdc.<its name>.}; keys of other flows are left alone.
     */
    public PlannedFlow plan(AutoCdcFlow flow, FlowScript.TargetTable target) {
        return plan(flow, target, FlowOptions.readOne(tEnv.getConfig(), flow.name(), setLines));
    }

    private PlannedFlow plan(AutoCdcFlow flow, FlowScript.TargetTable target, FlowOptions options) {
        int line = flow.line();
        ResolvedSchema source;
        try {
            source = tEnv.from(quoteName(flow.source())).getResolvedSchema();
        } catch (RuntimeException e) {
            throw new FlowSyntaxException(
                    line,
                    "FROM",
                    "unknown source "
                            + flow.source()
                            + "; create it first (CREATE TABLE "
                            + flow.source()
                            + " (...) WITH (...)) or use an existing table or view");
        }
        List<String> sourceColumns = new ArrayList<>();
        for (Column c : source.getColumns()) {
            sourceColumns.add(c.getName());
        }
        // Control columns are named under a prefix no source column uses, so every source column
        // stays data whatever its name (semantics §11).
        String prefix = ControlColumn.prefixAvoiding(sourceColumns);
        // a Kafka or filesystem source is read as bytes and decoded by a step of ours, so that a
        // record its format cannot read is a dead letter (SourceDecoding)
        SourceDecoding.Decoded decoded = null;
        if (options.badRecords(flow.name()) == FlowOptions.BadRecords.DEAD_LETTER) {
            try {
                decoded =
                        SourceDecoding.decode(
                                tEnv,
                                flow.name(),
                                flow.source(),
                                snapshotWatermark(flow, sourceColumns));
            } catch (RuntimeException e) {
                throw new FlowSyntaxException(
                        line,
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
        FlowMapping mapping;
        try {
            mapping = FlowMapping.of(flow, sourceColumns);
        } catch (FlowDefinitionException e) {
            throw new FlowSyntaxException(line, e.clause(), e.detail());
        }

        if (flow.fromSnapshot()) {
            SnapshotSources.check(tEnv, flow, source, decoded);
        }
        String erasures = options.erasuresTable(flow.name());
        String sql =
                InputProjection.select(
                        tEnv, flow, mapping, source, prefix, decoded, erasures != null);
        Table projection;
        try {
            projection = tEnv.sqlQuery(sql);
        } catch (RuntimeException e) {
            throw new FlowSyntaxException(
                    line, "AUTO CDC", "Flink could not plan the flow's input: " + rootMessage(e));
        }
        RowType projected =
                (RowType) projection.getResolvedSchema().toPhysicalRowDataType().getLogicalType();
        RowType input =
                decoded == null
                        ? projected
                        : new RowType(
                                projected.getFields().subList(0, projected.getFieldCount() - 1));

        EngineSpec spec = spec(flow, mapping, input, prefix, options, OutputMode.RETRACT);
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
            spec = spec(flow, mapping, input, prefix, options, mode);
        }
        return new PlannedFlow(
                flow,
                target,
                declared.kind(),
                spec,
                sql,
                projection,
                options,
                decoded == null ? null : decoded.letters(),
                decoded != null);
    }

    /**
     * The watermark of a flow from snapshots on an unbounded source: on the version, bitemporal the
     * system sequence; null for a change flow or a STRUCT version (complete at the end of a bounded
     * input only).
     */
    private static SnapshotWatermark snapshotWatermark(AutoCdcFlow flow, List<String> columns) {
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
            throw new FlowSyntaxException(flow.line(), e.clause(), e.detail());
        }
    }

    private static EngineSpec spec(
            AutoCdcFlow flow,
            FlowMapping mapping,
            RowType input,
            String prefix,
            FlowOptions options,
            OutputMode mode) {
        try {
            return mapping.engineSpec(
                    flow, input, prefix, options.engineSettings(flow.name()), mode);
        } catch (FlowDefinitionException e) {
            throw new FlowSyntaxException(flow.line(), e.clause(), e.detail());
        } catch (IllegalArgumentException e) {
            throw new FlowSyntaxException(flow.line(), "COLUMNS", e.getMessage());
        }
    }

    static String quote(String identifier) {
        return "`" + identifier.replace("`", "``") + "`";
    }

    /** A possibly dotted table name, each part quoted. */
    static String quoteName(String name) {
        StringBuilder b = new StringBuilder();
        for (String part : name.split("\\.")) {
            if (b.length() > 0) {
                b.append('.');
            }
            b.append(quote(part));
        }
        return b.toString();
    }

    private static String key(String name) {
        return name.toLowerCase(Locale.ROOT);
    }

    static String rootMessage(Throwable e) {
        Throwable t = e;
        String message = e.getMessage();
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
            if (t.getMessage() != null) {
                message = t.getMessage();
            }
        }
        return message == null ? e.toString() : message.lines().findFirst().orElse(message);
    }
}
