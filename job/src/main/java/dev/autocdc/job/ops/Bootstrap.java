package dev.autocdc.job.ops;

import dev.autocdc.job.flow.FlowScript;
import dev.autocdc.job.flow.ScriptSplitter;
import dev.autocdc.job.plan.FlowJob;
import dev.autocdc.job.plan.PlannedFlow;
import dev.autocdc.operators.core.ColumnType;
import dev.autocdc.operators.core.InvalidHistoryException;
import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.FlowKeySelector;
import dev.autocdc.operators.flink.HistoryLoader;
import dev.autocdc.operators.flink.spec.EngineSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.typeutils.ListTypeInfo;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.state.api.OperatorIdentifier;
import org.apache.flink.state.api.OperatorTransformation;
import org.apache.flink.state.api.SavepointReader;
import org.apache.flink.state.api.SavepointWriter;
import org.apache.flink.state.api.StateBootstrapTransformation;
import org.apache.flink.state.api.functions.KeyedStateBootstrapFunction;
import org.apache.flink.state.api.functions.KeyedStateReaderFunction;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.assigners.GlobalWindows;
import org.apache.flink.streaming.api.windowing.windows.GlobalWindow;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.utils.TypeConversions;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts flows from histories stored elsewhere: reads each flow's stored table with Flink SQL, in
 * batch, and writes a savepoint holding the state the flow's engine keeps for those rows ({@link
 * HistoryLoader}, through Flink's State Processor API), under the engine operator's uid. A job of
 * the flow file started from that savepoint applies new events as if it had seen the past; its
 * sources have no state there, so they start from their {@code scan.startup.mode}.
 */
public final class Bootstrap {
    /** Accumulators of the bootstrap job: keys and rows loaded, per flow. */
    static final String KEYS = "keys-";

    static final String ROWS = "rows-";

    private static final Pattern SET =
            Pattern.compile("SET\\s+'([^']+)'\\s*=\\s*'([^']*)'", Pattern.CASE_INSENSITIVE);

    private static final Logger LOG = LoggerFactory.getLogger(Bootstrap.class);

    private Bootstrap() {}

    /** What one flow starts from. */
    public record Source(PlannedFlow flow, String table, String asOf, BootstrapWords words) {}

    /**
     * Writes the savepoint; returns the keys and rows loaded per flow name.
     *
     * @param env a fresh environment (it runs in batch)
     * @param statements the flow file's statements that declare catalogs and tables
     */
    public static Map<String, long[]> write(
            StreamExecutionEnvironment env,
            List<FlowScript.SqlStatement> statements,
            List<Source> sources,
            String savepoint,
            int maxParallelism)
            throws Exception {
        env.setRuntimeMode(RuntimeExecutionMode.BATCH);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        for (FlowScript.SqlStatement s : statements) {
            String sql = ScriptSplitter.stripComments(s.sql()).strip();
            Matcher set = SET.matcher(sql);
            if (set.matches()) {
                tEnv.getConfig().getConfiguration().setString(set.group(1), set.group(2));
            } else {
                tEnv.executeSql(sql);
            }
        }
        SavepointWriter writer =
                SavepointWriter.newSavepoint(
                        env, new EmbeddedRocksDBStateBackend(), maxParallelism);
        for (Source source : sources) {
            EngineSpec spec = source.flow().spec();
            writer.withOperator(
                    OperatorIdentifier.forUid(FlowJob.engineUid(spec.flow().name())),
                    transformation(tEnv, spec, source));
        }
        writer.write(savepoint);
        JobExecutionResult result = env.execute("autocdc bootstrap");
        Map<String, long[]> loaded = new LinkedHashMap<>();
        for (Source source : sources) {
            String name = source.flow().spec().flow().name();
            Long keys = result.getAccumulatorResult(KEYS + name);
            Long rows = result.getAccumulatorResult(ROWS + name);
            loaded.put(name, new long[] {keys == null ? 0 : keys, rows == null ? 0 : rows});
        }
        for (Source source : sources) {
            EngineSpec spec = source.flow().spec();
            long checked = loaded.get(spec.flow().name())[0];
            long written = keysIn(env, savepoint, spec); // where the bootstrap ran
            if (written != checked) {
                throw new IllegalStateException(
                        "flow "
                                + spec.flow().name()
                                + ": the savepoint holds the state of "
                                + written
                                + " of the "
                                + checked
                                + " keys checked: writing state failed (the log says why); do not"
                                + " start from "
                                + savepoint);
            }
        }
        return loaded;
    }

    /**
     * The keys the savepoint holds state for, read back: the State Processor API does not fail its
     * job when a bootstrap function throws (it runs it in a thread of its own), so a savepoint is
     * trusted only once its keys are counted.
     */
    private static long keysIn(StreamExecutionEnvironment env, String savepoint, EngineSpec spec)
            throws Exception {
        TypeInformation<Object> keyType = HistoryLoader.keySelector(spec).getProducedType();
        // a key comes once per state that holds it: counted once each
        // counted in an accumulator of a job run with execute(), as the bootstrap is: a session's
        // environment (a procedure's) runs jobs through execute() alone
        SavepointReader.read(env, savepoint, new EmbeddedRocksDBStateBackend())
                .readKeyedState(
                        OperatorIdentifier.forUid(FlowJob.engineUid(spec.flow().name())),
                        new KeysOf(new HistoryLoader(spec)),
                        keyType,
                        keyType)
                .keyBy(k -> k, keyType)
                .reduce((a, b) -> a)
                .map(new CountKeys())
                .returns(Types.LONG)
                .sinkTo(new DiscardingSink<>());
        Long n =
                env.execute("autocdc bootstrap: the savepoint's keys")
                        .getAccumulatorResult(CountKeys.KEYS_READ);
        return n == null ? 0 : n;
    }

    /** Counts the keys it sees ({@value #KEYS_READ}). */
    private static final class CountKeys extends RichMapFunction<Object, Long> {
        static final String KEYS_READ = "keys-read";
        private transient LongCounter keys;

        @Override
        public void open(OpenContext context) {
            keys = getRuntimeContext().getLongCounter(KEYS_READ);
        }

        @Override
        public Long map(Object key) {
            keys.add(1);
            return 1L;
        }
    }

    private static StateBootstrapTransformation<List<RowData>> transformation(
            StreamTableEnvironment tEnv, EngineSpec spec, Source source) {
        RowType history = HistoryLoader.historyType(spec);
        Table table = tEnv.sqlQuery(select(spec, history, source));
        DataStream<RowData> rows =
                tEnv.toDataStream(
                        table,
                        TypeConversions.fromLogicalToDataType(history).bridgedTo(RowData.class));
        FlowKeySelector keys = HistoryLoader.keySelector(spec);
        ListTypeInfo<RowData> listType = new ListTypeInfo<>(InternalTypeInfo.of(history));
        DataStream<List<RowData>> byKey =
                rows.keyBy(keys)
                        .window(GlobalWindows.createWithEndOfStreamTrigger())
                        .process(new CheckedRowsOfKey(new HistoryLoader(spec), spec.flow().name()))
                        .returns(listType)
                        .name("rows of each key of " + source.table());
        return OperatorTransformation.bootstrapWith(byKey)
                .keyBy(list -> keys.getKey(list.get(0)), keys.getProducedType())
                .transform(new Load(new HistoryLoader(spec)));
    }

    /** The stored table's columns by name, cast to the history's types. */
    static String select(EngineSpec spec, RowType history, Source source) {
        List<String> columns = new ArrayList<>();
        int n = history.getFieldCount();
        boolean scd1 = spec.flow().targetType() == TargetType.SCD1;
        for (int i = 0; i < (scd1 ? n - 1 : n); i++) {
            columns.add(cast(quote(history.getFieldNames().get(i)), history.getTypeAt(i)));
        }
        if (scd1) {
            columns.add(
                    cast(scd1Sequence(spec, source), history.getTypeAt(n - 1))
                            + " AS `__START_AT`");
        }
        return "SELECT " + String.join(", ", columns) + " FROM " + source.table();
    }

    /** An SCD1 row's sequence: --as-of, else the one kept SEQUENCE BY column. */
    private static String scd1Sequence(EngineSpec spec, Source source) {
        if (source.asOf() != null) {
            return source.asOf();
        }
        List<String> kept = new ArrayList<>();
        for (int c = 0; c < spec.flow().columnCount(); c++) {
            if (spec.flow().isSequenceColumn(c)) {
                kept.add(spec.flow().columnNames().get(c));
            }
        }
        if (kept.size() != 1 || spec.flow().sequenceType().kind() == ColumnType.Kind.ROW) {
            throw new IllegalArgumentException(
                    "flow "
                            + spec.flow().name()
                            + " is SCD TYPE 1 and its target does not keep its SEQUENCE BY column:"
                            + " give the sequence its rows are as of, with "
                            + source.words().asOf()
                            + " (an SQL expression of the SEQUENCE BY type, say TIMESTAMP"
                            + " '2026-01-01 00:00:00')");
        }
        return quote(kept.get(0));
    }

    private static String cast(String expression, LogicalType type) {
        return "CAST(" + expression + " AS " + type.asSerializableString() + ")";
    }

    private static String quote(String name) {
        return "`" + name.replace("`", "``") + "`";
    }

    /**
     * All stored rows of a key, in one list, checked. The check is here, not in {@link Load}: the
     * State Processor API runs a bootstrap function in a thread of its own and does not fail the
     * job when it throws (Flink 2.2), nor keep its accumulators.
     */
    private static final class CheckedRowsOfKey
            extends ProcessWindowFunction<RowData, List<RowData>, Object, GlobalWindow> {
        private final HistoryLoader loader;
        private final String flow;
        private transient LongCounter keys;
        private transient LongCounter rows;

        CheckedRowsOfKey(HistoryLoader loader, String flow) {
            this.loader = loader;
            this.flow = flow;
        }

        @Override
        public void open(OpenContext context) {
            keys = getRuntimeContext().getLongCounter(KEYS + flow);
            rows = getRuntimeContext().getLongCounter(ROWS + flow);
        }

        @Override
        public void process(
                Object key, Context context, Iterable<RowData> stored, Collector<List<RowData>> out)
                throws Exception {
            List<RowData> all = new ArrayList<>();
            stored.forEach(all::add);
            try {
                loader.check(all);
            } catch (InvalidHistoryException e) {
                // the message is whole: it is what a user reads, as the root of the job's failure
                throw new IllegalArgumentException("flow " + flow + ": " + e.getMessage());
            }
            keys.add(1);
            rows.add(all.size());
            out.collect(all);
        }
    }

    /** Each key of the engine's state (its states registered as the engine registers them). */
    private static final class KeysOf extends KeyedStateReaderFunction<Object, Object> {
        private final HistoryLoader loader;

        KeysOf(HistoryLoader loader) {
            this.loader = loader;
        }

        @Override
        public void open(OpenContext context) {
            loader.open(getRuntimeContext());
        }

        @Override
        public void readKey(Object key, Context ctx, Collector<Object> out) {
            out.collect(key);
        }
    }

    /**
     * The loader as a State Processor API function, on rows checked already. A failure is logged
     * and the rest skipped, never thrown: the function runs in a thread of its own whose failure
     * would leave the job waiting on it; {@link #keysIn} finds the keys missing.
     */
    private static final class Load extends KeyedStateBootstrapFunction<Object, List<RowData>>
            implements CheckpointedFunction {
        private final HistoryLoader loader;
        private transient boolean failed;

        Load(HistoryLoader loader) {
            this.loader = loader;
        }

        @Override
        public void initializeState(FunctionInitializationContext context) throws Exception {
            loader.initializeShape(context);
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) {}

        @Override
        public void open(OpenContext context) {
            loader.open(getRuntimeContext());
        }

        @Override
        public void processElement(List<RowData> value, Context ctx) {
            if (failed) {
                return;
            }
            try {
                loader.load(value, ctx.timerService());
            } catch (Exception e) {
                failed = true;
                LOG.error("writing a key's state failed; the keys after it are skipped", e);
            }
        }
    }
}
