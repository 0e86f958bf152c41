package dev.autocdc.job.plan;

import dev.autocdc.job.flow.FlowScript;
import dev.autocdc.job.flow.FlowSyntaxException;
import dev.autocdc.job.flow.ScriptSplitter;
import dev.autocdc.job.flow.SetStatement;
import dev.autocdc.job.flow.StatementEnd;
import dev.autocdc.operators.core.AutoCdcFlow;
import dev.autocdc.operators.flink.spec.EngineSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.api.internal.TableEnvironmentInternal;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.operations.Operation;
import org.apache.flink.table.operations.ddl.CreateTableOperation;

/**
 * Turns a {@link FlowScript} into {@link PlannedFlow}s: runs the script's Flink SQL (sources,
 * views, SET), checks that each flow has a name of its own and a declared target of its own, and
 * plans each flow ({@link OneFlowPlanner}): resolves it against its source's schema, checks every
 * clause, and builds the engine's input projection ({@link InputProjection}) and {@link
 * EngineSpec}. Any mistake fails here, before a job starts, with a {@link FlowSyntaxException}
 * naming the line, the clause and the fix.
 *
 * <p>Per-flow settings are read from the table configuration (set them with {@code SET} in the
 * script or {@code -D} on the command line) through {@link FlowOptions}, when the flow is planned;
 * a key under {@code autocdc.} that names no flow of the script or no setting fails the script.
 */
public final class FlowPlanner {
    private final StreamTableEnvironment tEnv;
    private final List<String> inserts = new ArrayList<>();

    /** The script line of each key set with SET, for messages. */
    private final Map<String, Integer> setLines = new HashMap<>();

    /** The script line of each table the script creates, for messages. */
    private final Map<ObjectIdentifier, Integer> tableLines = new HashMap<>();

    private final OneFlowPlanner oneFlow;

    /** The script's INSERT statements, to run in the flows' job. */
    public List<String> inserts() {
        return inserts;
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
        this.oneFlow = new OneFlowPlanner(tEnv, createsTargets, setLines, tableLines);
    }

    /** Runs the script's SQL statements and plans every flow, in script order. */
    public List<PlannedFlow> plan(FlowScript script) {
        List<String> flowNames = flowNames(script);
        Map<String, FlowScript.TargetTable> targets = new HashMap<>();
        Set<String> targetsWithFlow = new HashSet<>();
        List<PlannedFlow> planned = new ArrayList<>();
        for (FlowScript.Item item : script.items()) {
            if (item instanceof FlowScript.SqlStatement sql) {
                run(sql);
            } else if (item instanceof FlowScript.TargetTable target) {
                if (targets.put(key(target.name()), target) != null) {
                    throw new FlowSyntaxException(
                            target.line(),
                            "CREATE OR REFRESH STREAMING TABLE",
                            "target " + target.name() + " is declared twice; keep one declaration");
                }
            } else if (item instanceof FlowScript.FlowItem flowItem) {
                AutoCdcFlow flow = flowItem.flow();
                planned.add(
                        oneFlow.plan(
                                flow,
                                targetOf(flow, targets, targetsWithFlow),
                                FlowOptions.read(tEnv.getConfig(), flowNames, setLines),
                                flowItem.conditionLines(),
                                true));
            }
        }
        wholeScriptSettings(planned, flowNames);
        if (planned.isEmpty()) {
            throw new FlowSyntaxException(
                    1,
                    "CREATE FLOW",
                    "the script has no AUTO CDC flow; add CREATE FLOW name AS AUTO CDC INTO target"
                            + " FROM STREAM(source) KEYS (...) SEQUENCE BY ...");
        }
        return planned;
    }

    /** The names of the script's flows, in script order, each named once. */
    private static List<String> flowNames(FlowScript script) {
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
        return flowNames;
    }

    /**
     * One of the script's SQL statements: SET goes into the table configuration, INSERT waits for
     * the flows' job, anything else runs now.
     */
    private void run(FlowScript.SqlStatement sql) {
        // without comments: a statement is known by its first word, not by a comment
        String text = ScriptSplitter.stripComments(sql.sql()).strip();
        SetStatement set = SetStatement.parse(text);
        if (set != null) {
            if (set.key().equals(ExecutionOptions.RUNTIME_MODE.key())) {
                throw new FlowSyntaxException(
                        sql.line(),
                        "SET",
                        "a flow file runs as one streaming job, so "
                                + ExecutionOptions.RUNTIME_MODE.key()
                                + " cannot be set in it; remove this line (a bounded source ends"
                                + " the run by itself). To ask a table in batch SQL, put the"
                                + " queries in a file of their own: autocdc sql --flow FILE.sql");
            }
            tEnv.getConfig().getConfiguration().setString(set.key(), set.value());
            setLines.put(set.key(), sql.line());
            return;
        }
        if (SetStatement.startsWithSet(text)) {
            FlowSyntaxException runsOn = StatementEnd.runsOn(text, sql.line());
            throw runsOn != null
                    ? runsOn
                    : new FlowSyntaxException(sql.line(), "SET", "write SET 'key' = 'value'");
        }
        if (text.regionMatches(true, 0, "INSERT", 0, 6)) {
            inserts.add(text); // runs in the same job as the flows
            return;
        }
        try {
            execute(text, sql.line());
        } catch (RuntimeException e) {
            FlowSyntaxException runsOn = StatementEnd.inFlinkError(text, sql.line(), e);
            throw runsOn != null
                    ? runsOn
                    : new FlowSyntaxException(
                            sql.line(),
                            "SQL",
                            "Flink could not run the statement: " + rootMessage(e));
        }
    }

    /**
     * Runs one statement as {@link StreamTableEnvironment#executeSql} does, noting the line of a
     * table it creates.
     */
    private void execute(String text, int line) {
        TableEnvironmentInternal internal = (TableEnvironmentInternal) tEnv;
        List<Operation> operations = internal.getParser().parse(text);
        if (operations.size() != 1) {
            tEnv.executeSql(text); // Flink's own refusal
            return;
        }
        internal.executeInternal(operations.get(0));
        if (operations.get(0) instanceof CreateTableOperation create) {
            tableLines.putIfAbsent(create.getTableIdentifier(), line);
        }
    }

    /**
     * The target a flow writes: declared before it, and written by no other flow of the script.
     *
     * @param targetsWithFlow the targets of the flows before it, to which this flow's is added
     */
    private static FlowScript.TargetTable targetOf(
            AutoCdcFlow flow,
            Map<String, FlowScript.TargetTable> targets,
            Set<String> targetsWithFlow) {
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
        return target;
    }

    /**
     * Gives each planned flow the settings of the whole script. The dead-letter and late-event
     * tables are wired after the whole script, so they may be set anywhere in it; a setting the
     * flow took when it was planned may not come after the flow.
     */
    private void wholeScriptSettings(List<PlannedFlow> planned, List<String> flowNames) {
        FlowOptions whole = FlowOptions.read(tEnv.getConfig(), flowNames, setLines);
        for (int i = 0; i < planned.size(); i++) {
            PlannedFlow p = planned.get(i);
            String name = p.flow().name();
            whole.refuseSetAfter(name, p.flow().line());
            LetterTables.check(
                    tEnv,
                    name,
                    TargetOptions.DEAD_LETTER_TABLE.key(),
                    whole.deadLetterTable(name),
                    setLines);
            LetterTables.check(
                    tEnv,
                    name,
                    TargetOptions.LATE_EVENTS_TABLE.key(),
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
                            p.sourceRead()));
        }
    }

    /**
     * Plans one flow (its source must exist in the table environment), with the settings of the
     * table configuration under {@code autocdc.<its name>.}; keys of other flows are left alone.
     * The flow reads its source on its own.
     */
    public PlannedFlow plan(AutoCdcFlow flow, FlowScript.TargetTable target) {
        return oneFlow.plan(
                flow,
                target,
                FlowOptions.readOne(tEnv.getConfig(), flow.name(), setLines),
                Map.of(),
                false);
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
