package dev.autocdc.job.plan;

import dev.autocdc.operators.flink.AutoCdc;
import dev.autocdc.operators.flink.runtime.DeadLetter;
import dev.autocdc.operators.flink.runtime.InputCheck;
import dev.autocdc.operators.flink.runtime.SideOutputs;
import dev.autocdc.operators.flink.spec.ControlColumn;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.spec.OutputMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamStatementSet;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.ExternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.utils.TypeConversions;
import org.apache.flink.types.Row;
import org.apache.flink.util.OutputTag;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wires planned flows into one Flink job: each flow's input projection (a Flink SQL query over its
 * source) becomes a changelog stream, goes through the AUTO CDC operator, and its target changelog
 * goes to the declared target table (when it has a connector). Dead letters and late events go to
 * the tables named by {@code autocdc.<flow>.dead-letter-table} / {@code
 * autocdc.<flow>.late-events-table}, or are logged; both are counted by the operator's metrics.
 */
public final class FlowJob {
    private static final Logger LOG = LoggerFactory.getLogger(FlowJob.class);

    /** The columns of a dead-letter or late-events table, in order (docs/operations.md). */
    public static final DataType LETTER_TABLE =
            DataTypes.ROW(
                    DataTypes.FIELD("flow", DataTypes.STRING()),
                    DataTypes.FIELD("source", DataTypes.STRING()),
                    DataTypes.FIELD("reason", DataTypes.STRING()),
                    DataTypes.FIELD("message", DataTypes.STRING()),
                    DataTypes.FIELD("payload", DataTypes.STRING()),
                    DataTypes.FIELD("topic", DataTypes.STRING()),
                    DataTypes.FIELD("partition", DataTypes.INT()),
                    DataTypes.FIELD("offset", DataTypes.BIGINT()),
                    DataTypes.FIELD("raw", DataTypes.BYTES()));

    private final StreamTableEnvironment tEnv;
    private final List<PlannedFlow> flows;
    private final Map<String, DataStream<RowData>> changelogs = new LinkedHashMap<>();
    private final StreamStatementSet statements;

    private final List<String> inserts;

    /** Where letters with no table go; null: the log. */
    private Sink<DeadLetter> letterSink;

    private String letterSinkName;

    /** The letters bound for the letter sink, written by one writer. */
    private final List<DataStream<DeadLetter>> toLetterSink = new ArrayList<>();

    /** Per flow and kind ({@link LetterCounts}), where its letters go, for the run's report. */
    private final Map<String, Map<String, String>> destinations = new LinkedHashMap<>();

    public FlowJob(StreamTableEnvironment tEnv, List<PlannedFlow> flows) {
        this(tEnv, flows, List.of());
    }

    /**
     * @param inserts the script's own INSERT statements, run in the same job
     */
    public FlowJob(StreamTableEnvironment tEnv, List<PlannedFlow> flows, List<String> inserts) {
        this.tEnv = tEnv;
        this.flows = List.copyOf(flows);
        this.inserts = List.copyOf(inserts);
        this.statements = tEnv.createStatementSet();
    }

    public List<PlannedFlow> flows() {
        return flows;
    }

    /**
     * Sends the dead letters and late events that have no table to {@code sink} (run with
     * parallelism 1) instead of the log; call before {@link #attach()}.
     *
     * @param name where the sink writes, for the run's report
     */
    public FlowJob lettersTo(Sink<DeadLetter> sink, String name) {
        this.letterSink = sink;
        this.letterSinkName = name;
        return this;
    }

    /**
     * Per flow and letter kind ({@link LetterCounts#DEAD}, {@link LetterCounts#LATE}), where they
     * went.
     */
    public Map<String, Map<String, String>> destinations() {
        return destinations;
    }

    /** The uid of a flow's engine operator (part of the savepoint format, docs/reliability.md). */
    public static String engineUid(String flow) {
        return "auto-cdc-" + flow;
    }

    /** Adds every flow to the job; returns each target's changelog by target name. */
    public Map<String, DataStream<RowData>> attach() {
        boolean anySink = !inserts.isEmpty();
        inserts.forEach(statements::addInsertSql);
        for (PlannedFlow flow : flows) {
            anySink |= attach(flow);
        }
        if (!toLetterSink.isEmpty()) {
            DataStream<DeadLetter> all = toLetterSink.get(0);
            for (DataStream<DeadLetter> more : toLetterSink.subList(1, toLetterSink.size())) {
                all = all.union(more);
            }
            all.sinkTo(letterSink)
                    .setParallelism(1)
                    .name("letters to " + letterSinkName)
                    .uid("auto-cdc-letters-to-file");
        }
        if (anySink) {
            statements.attachAsDataStream();
        }
        changelogs.values().stream()
                .findFirst()
                .ifPresent(c -> StableUids.ofSinks(c.getExecutionEnvironment()));
        return changelogs;
    }

    /**
     * Adds one flow: its engine input, the engine, where its letters go and, when it writes a
     * table, its target's insert. Returns whether it added an insert to the statement set.
     */
    private boolean attach(PlannedFlow flow) {
        EngineSpec spec = flow.spec();
        OutputTag<DeadLetter> refused =
                new OutputTag<>("refused input of " + flow.flow().name()) {};
        SingleOutputStreamOperator<RowData> events = engineInput(flow, refused);
        StableUids.ofInput(
                events,
                flow.flow().name(),
                flow.sourceRead() == null
                        ? null
                        : flow.sourceRead()
                                .uid(
                                        StableUids.sourceUid(
                                                flow.flow().name(), flow.flow().source())));
        DataStream<RowData> engineInput =
                flow.erasuresTable() == null ? events : events.union(Erasures.stream(tEnv, flow));
        SingleOutputStreamOperator<RowData> changelog =
                AutoCdc.apply(
                        engineInput,
                        spec,
                        InternalTypeInfo.of(spec.targetType()),
                        engineUid(flow.flow().name()));
        Integer parallelism = flow.settings().parallelism(flow.flow().name());
        if (parallelism != null) {
            changelog.setParallelism(parallelism);
        }
        changelogs.put(flow.flow().target(), changelog);
        DataStream<DeadLetter> deadLetters =
                changelog
                        .getSideOutput(SideOutputs.DEAD_LETTERS)
                        .union(events.getSideOutput(refused));
        boolean anySink =
                route(
                        flow,
                        flow.sourceLetters() == null
                                ? deadLetters
                                : deadLetters.union(flow.sourceLetters()),
                        flow.deadLetterTable(),
                        TargetOptions.DEAD_LETTER_TABLE.key(),
                        LetterCounts.DEAD);
        anySink |=
                route(
                        flow,
                        changelog.getSideOutput(SideOutputs.LATE_EVENTS),
                        flow.lateEventsTable(),
                        TargetOptions.LATE_EVENTS_TABLE.key(),
                        LetterCounts.LATE);
        if (flow.writesTable()) { // created or found by the planner (DeclaredTarget)
            statements.add(
                    toTable(flow, changelog)
                            .insertInto(FlowPlanner.quoteName(flow.flow().target())));
            anySink = true;
        }
        return anySink;
    }

    /** The flow's input projection as the engine's rows, its refused rows to {@code refused}. */
    private SingleOutputStreamOperator<RowData> engineInput(
            PlannedFlow flow, OutputTag<DeadLetter> refused) {
        EngineSpec spec = flow.spec();
        DataType inputType = flow.input().getResolvedSchema().toPhysicalRowDataType();
        return tEnv.toChangelogStream(flow.input())
                .process(
                        new EngineInput(
                                flow.flow().name(),
                                inputType,
                                flow.carriesBytes(),
                                flow.carriesBytes() ? new InputCheck(spec) : null,
                                // a snapshot flow's refused row goes on, marked, to hold its key
                                // at its snapshot (semantics §10)
                                spec.snapshot() ? spec.field(ControlColumn.REFUSED) : -1,
                                refused))
                .returns(InternalTypeInfo.of(spec.inputType()))
                .name("engine input of " + flow.flow().name())
                .uid("auto-cdc-input-" + flow.flow().name());
    }

    /**
     * Counts letters ({@link LetterCounts}) and sends them to their table, else to the letter sink,
     * else to the log. The counter's uid is named after the setting that routes them.
     */
    private boolean route(
            PlannedFlow flow,
            DataStream<DeadLetter> uncounted,
            String table,
            String setting,
            String kind) {
        String name = flow.flow().name();
        DataStream<DeadLetter> letters =
                uncounted
                        .map(
                                new LetterCounts.LetterCounter(
                                        kind, flow.flow().source(), flow.erasuresTable()))
                        .name(kind + "s of " + name)
                        .uid("auto-cdc-" + setting + "-" + name);
        Map<String, String> where = destinations.computeIfAbsent(name, n -> new LinkedHashMap<>());
        if (table == null && letterSink != null) {
            where.put(kind, "written to " + letterSinkName);
            toLetterSink.add(letters); // one writer for them all (attach)
            return false;
        }
        if (table == null) {
            where.put(
                    kind,
                    "logged only (WARN "
                            + FlowJob.class.getName()
                            + "); set 'autocdc."
                            + name
                            + "."
                            + setting
                            + "' or run with --dead-letters FILE.jsonl to keep them");
            letters.map(new LogLetter(kind))
                    .name("log " + kind + "s of " + name)
                    .sinkTo(new DiscardingSink<>());
            return false;
        }
        where.put(kind, "written to table " + table);
        DataType type = LETTER_TABLE;
        String source = flow.flow().source();
        DataStream<Row> rows =
                letters.map(
                                d ->
                                        Row.of(
                                                d.flow,
                                                d.source == null ? source : d.source,
                                                d.reason,
                                                d.message,
                                                d.payload,
                                                d.topic,
                                                d.partition,
                                                d.offset,
                                                d.raw))
                        .returns(ExternalTypeInfo.of(type));
        statements.add(tEnv.fromDataStream(rows).insertInto(FlowPlanner.quoteName(table)));
        return true;
    }

    private Table toTable(PlannedFlow flow, DataStream<RowData> changelog) {
        EngineSpec spec = flow.spec();
        DataType type = TypeConversions.fromLogicalToDataType(spec.targetType());
        // The engine's RowData go to the planner as they are (their type information is internal),
        // with no conversion to Row and back; fromChangelogStream is declared for Row only.
        @SuppressWarnings({"unchecked", "rawtypes"})
        DataStream<Row> rows = (DataStream) changelog;
        Schema.Builder schema = Schema.newBuilder().fromRowDataType(type);
        if (spec.outputMode() == OutputMode.UPSERT) {
            List<String> pk = new ArrayList<>();
            for (int i : spec.targetPrimaryKey()) {
                pk.add(spec.targetType().getFieldNames().get(i));
            }
            // a primary key's columns are NOT NULL
            schema = Schema.newBuilder();
            RowType t = spec.targetType();
            for (int i = 0; i < t.getFieldCount(); i++) {
                DataType f = TypeConversions.fromLogicalToDataType(t.getTypeAt(i));
                schema.column(
                        t.getFieldNames().get(i),
                        pk.contains(t.getFieldNames().get(i)) ? f.notNull() : f);
            }
            schema.primaryKey(pk);
            return tEnv.fromChangelogStream(rows, schema.build(), ChangelogMode.upsert(false));
        }
        return tEnv.fromChangelogStream(rows, schema.build(), ChangelogMode.all());
    }

    /** Logs a dead letter or late event that has no table to go to. */
    static final class LogLetter implements MapFunction<DeadLetter, DeadLetter> {
        private final String what;

        LogLetter(String what) {
            this.what = what;
        }

        @Override
        public DeadLetter map(DeadLetter d) {
            LOG.warn(
                    "AUTO CDC {} of flow {}: {} ({}) {}",
                    what,
                    d.flow,
                    d.reason,
                    d.message,
                    d.payload);
            return d;
        }
    }
}
