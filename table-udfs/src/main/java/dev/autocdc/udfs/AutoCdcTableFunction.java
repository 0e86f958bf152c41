package dev.autocdc.udfs;

import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.runtime.AutoCdcProcessor;
import dev.autocdc.operators.flink.runtime.DeadLetter;
import dev.autocdc.operators.flink.runtime.JsonRows;
import dev.autocdc.operators.flink.spec.OutputMode;
import java.util.List;
import java.util.Optional;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.table.annotation.ArgumentHint;
import org.apache.flink.table.annotation.ArgumentTrait;
import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.annotation.StateHint;
import org.apache.flink.table.api.dataview.MapView;
import org.apache.flink.table.catalog.DataTypeFactory;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.conversion.DataStructureConverter;
import org.apache.flink.table.data.conversion.DataStructureConverters;
import org.apache.flink.table.functions.ChangelogFunction;
import org.apache.flink.table.functions.FunctionContext;
import org.apache.flink.table.functions.ProcessTableFunction;
import org.apache.flink.table.functions.SpecializedFunction;
import org.apache.flink.table.functions.TableSemantics;
import org.apache.flink.table.functions.UserDefinedFunction;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.inference.CallContext;
import org.apache.flink.table.types.inference.StaticArgument;
import org.apache.flink.table.types.inference.TypeInference;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.utils.TypeConversions;
import org.apache.flink.types.ColumnList;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code AUTO_CDC}: AUTO CDC as a Process Table Function, for Flink SQL users who do not run the
 * job.
 *
 * <pre>{@code
 * SELECT * FROM AUTO_CDC(
 *   input => TABLE users_cdc PARTITION BY userId,       -- the KEYS
 *   sequence_by => DESCRIPTOR(sequenceNum),
 *   stored_as => 'SCD TYPE 2',                          -- 'SCD TYPE 1' (default), 'SCD TYPE 2', 'BITEMPORAL'
 *   apply_as_deletes => 'operation = ''DELETE''',       -- a condition ({@link DeleteExpression})
 *   except_column_list => DESCRIPTOR(operation, sequenceNum),
 *   uid => 'users-scd2')
 * }</pre>
 *
 * <p>Other arguments ({@link AutoCdcArguments}): {@code system_sequence_by} (bitemporal), {@code
 * column_list}, {@code ignore_null_updates} (BOOLEAN), {@code ignore_null_updates_column_list},
 * {@code ignore_null_updates_except_column_list}, {@code track_history_column_list}, {@code
 * track_history_except_column_list}, {@code columns_to_update} (a column of ARRAY&lt;STRING&gt; or
 * comma-separated STRING). Columns are named by DESCRIPTOR arguments. Every argument is a literal;
 * a wrong one fails at planning time with a message naming it.
 *
 * <p>Guarantees: the engine, its state layout and its semantics (semantics §1-8) are the job's
 * ({@link AutoCdcProcessor}); the output is the target's changelog in retract mode ({@code +I},
 * {@code -U}/{@code +U}, {@code -D}, each retraction carrying the row it retracts), with the
 * PARTITION BY columns first (Flink's rule for set-semantic tables), then the target's other
 * columns and {@code __START_AT}, {@code __END_AT}, {@code __SYSTEM_START_AT}, {@code
 * __SYSTEM_END_AT}. State is keyed Flink state (RocksDB when the job is configured so), restored
 * from checkpoints and savepoints under the call's {@code uid}.
 *
 * <p>What a PTF cannot do, and how this function handles it: invalid events (semantics §11) cannot
 * go to a side output: they are counted ({@code num_dead_letters} under the metric group {@code
 * flow/auto_cdc}, or {@code flow/auto_cdc_upsert}) and each is logged at WARN with its reason;
 * truncates need every key: there is no {@code apply_as_truncates}; the retentions need timers, and
 * Flink 2.2 gives a process table function timers only with {@code on_time}, which it refuses for a
 * function that emits updates, as this one does. SCD type 1 state follows {@code
 * table.exec.state.ttl} (a key idle that long is forgotten, as in Flink's own deduplication); type
 * 2 and bitemporal history is kept (a partial expiry would tear it).
 *
 * <p>The planner specializes each call ({@link #specialize}): the running instance holds the call's
 * arguments and its {@code apply_as_deletes} condition compiled by Flink ({@link
 * DeleteExpression}).
 */
@DataTypeHint(
        value = "ROW<unused INT>",
        bridgedTo = RowData.class) // replaced per call, see getTypeInference
public class AutoCdcTableFunction extends ProcessTableFunction<RowData>
        implements ChangelogFunction, SpecializedFunction {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(AutoCdcTableFunction.class);

    /** The call's arguments ({@link #specialize}); null in the instance a catalog holds. */
    private AutoCdcArguments arguments;

    /** The call's {@code apply_as_deletes}, compiled; null: none. */
    private DeleteExpression delete;

    private transient MetricGroup metrics;
    private transient ClassLoader classLoader;
    private transient AutoCdcPlan plan;
    private transient AutoCdcProcessor processor;
    private transient ViewStates states;
    private transient RowType inputType;
    private transient DataStructureConverter<Object, Object> inputConverter;
    private transient Collector<RowData> output;
    private transient long deadLetters;

    @Override
    public void open(FunctionContext context) throws Exception {
        metrics = context.getMetricGroup();
        classLoader = context.getUserCodeClassLoader();
        if (delete != null) {
            delete.open(context);
        }
    }

    @Override
    public void close() {
        if (delete != null) {
            delete.close();
        }
    }

    /**
     * Applies one input row. The scalar parameters declare the call's arguments; their values are
     * read once, when the planner specializes the call ({@link AutoCdcArguments}).
     */
    public void eval(
            Context ctx,
            @StateHint(name = "scd1") MapView<String, byte[]> scd1,
            @StateHint(name = "history", ttl = "0") MapView<String, byte[]> history,
            @StateHint(name = "history_blocks", ttl = "0") MapView<String, byte[]> historyBlocks,
            @ArgumentHint(
                            value = {
                                ArgumentTrait.SET_SEMANTIC_TABLE,
                                ArgumentTrait.SUPPORT_UPDATES,
                                ArgumentTrait.REQUIRE_FULL_DELETE
                            },
                            name = "input")
                    Row input,
            @ArgumentHint(name = "sequence_by", isOptional = true) ColumnList sequenceBy,
            @ArgumentHint(name = "stored_as", isOptional = true) String storedAs,
            @ArgumentHint(name = "system_sequence_by", isOptional = true)
                    ColumnList systemSequenceBy,
            @ArgumentHint(name = "apply_as_deletes", isOptional = true) String applyAsDeletes,
            @ArgumentHint(name = "column_list", isOptional = true) ColumnList columnList,
            @ArgumentHint(name = "except_column_list", isOptional = true)
                    ColumnList exceptColumnList,
            @ArgumentHint(name = "ignore_null_updates", isOptional = true)
                    Boolean ignoreNullUpdates,
            @ArgumentHint(name = "ignore_null_updates_column_list", isOptional = true)
                    ColumnList ignoreNullUpdatesColumnList,
            @ArgumentHint(name = "ignore_null_updates_except_column_list", isOptional = true)
                    ColumnList ignoreNullUpdatesExceptColumnList,
            @ArgumentHint(name = "track_history_column_list", isOptional = true)
                    ColumnList trackHistoryColumnList,
            @ArgumentHint(name = "track_history_except_column_list", isOptional = true)
                    ColumnList trackHistoryExceptColumnList,
            @ArgumentHint(name = "columns_to_update", isOptional = true) ColumnList columnsToUpdate)
            throws Exception {
        start(ctx, scd1, history, historyBlocks);
        RowData in = (RowData) inputConverter.toInternal(input);
        Boolean isDelete = null;
        if (delete != null) {
            try {
                isDelete = delete.test(in);
            } catch (IllegalArgumentException e) {
                deadLetter(
                        processor.refuse(
                                new DeadLetter(
                                        plan.spec().flow().name(),
                                        DeadLetter.BAD_CAST,
                                        e.getMessage(),
                                        JsonRows.object(
                                                inputType.getFieldNames(),
                                                inputType.getChildren(),
                                                fields(input)))));
                return;
            }
        }
        processor.process(plan.engineInput(in, isDelete), output, this::deadLetter);
    }

    /** Plans the call once per instance, and binds the current key's states. */
    private void start(
            Context ctx,
            MapView<String, byte[]> scd1,
            MapView<String, byte[]> history,
            MapView<String, byte[]> historyBlocks)
            throws Exception {
        if (processor == null) {
            if (arguments == null) {
                throw new IllegalStateException(
                        name() + " runs without the arguments the planner specializes it with");
            }
            plan(ctx);
        }
        if (plan.spec().flow().targetType() == TargetType.SCD1) {
            states.bind(scd1, historyBlocks);
        } else {
            states.bind(history, historyBlocks);
        }
    }

    private void plan(Context ctx) throws Exception {
        TableSemantics input = ctx.tableSemanticsFor("input");
        OutputMode mode =
                ctx.getChangelogMode().contains(RowKind.UPDATE_BEFORE)
                        ? OutputMode.RETRACT
                        : OutputMode.UPSERT;
        plan =
                AutoCdcPlan.of(
                        name(),
                        (RowType) input.dataType().getLogicalType(),
                        input.partitionByColumns(),
                        arguments,
                        mode);
        inputType = (RowType) input.dataType().getLogicalType();
        inputConverter = DataStructureConverters.getConverter(input.dataType());
        inputConverter.open(classLoader);
        states = new ViewStates(metrics, plan.stateLayout(), plan.earlierLayouts());
        processor = new AutoCdcProcessor(plan.spec());
        processor.open(states);
        output =
                new Collector<>() {
                    @Override
                    public void collect(RowData target) {
                        AutoCdcTableFunction.this.collect(plan.output(target));
                    }

                    @Override
                    public void close() {}
                };
    }

    private static Object[] fields(Row row) {
        Object[] values = new Object[row.getArity()];
        for (int i = 0; i < values.length; i++) {
            values[i] = row.getField(i);
        }
        return values;
    }

    /**
     * Counted by the engine (metric {@code num_dead_letters}); logged here, every one, with its
     * reason and the event (cut at 2,000 characters), since a PTF has no side output to send it to.
     */
    private void deadLetter(DeadLetter d) {
        deadLetters++;
        String payload =
                d.payload == null || d.payload.length() <= 2000
                        ? d.payload
                        : d.payload.substring(0, 2000) + "...";
        LOG.warn(
                "{}: invalid event skipped (#{} of this instance): {}: {}; event {}",
                name(),
                deadLetters,
                d.reason,
                d.message,
                payload);
    }

    /** The function's name in messages. */
    String name() {
        return "AUTO_CDC";
    }

    /** Whether the call must emit upserts when its consumer takes them (SCD type 1 only). */
    boolean upsertWhenPossible() {
        return false;
    }

    @Override
    public ChangelogMode getChangelogMode(ChangelogContext context) {
        return ChangelogMode.all();
    }

    @Override
    public TypeInference getTypeInference(DataTypeFactory typeFactory) {
        TypeInference extracted = super.getTypeInference(typeFactory);
        List<StaticArgument> arguments = extracted.getStaticArguments().orElseThrow();
        return TypeInference.newBuilder()
                .staticArguments(arguments)
                .inputTypeStrategy(extracted.getInputTypeStrategy())
                .stateTypeStrategies(extracted.getStateTypeStrategies())
                .outputTypeStrategy(call -> outputType(call, arguments))
                .build();
    }

    /**
     * Reads the call's arguments from its literals and compiles its delete condition, into a new
     * instance that runs the call.
     */
    @Override
    public UserDefinedFunction specialize(SpecializedContext context) {
        CallContext call = context.getCallContext();
        List<StaticArgument> statics =
                getTypeInference(call.getDataTypeFactory()).getStaticArguments().orElseThrow();
        AutoCdcTableFunction f;
        try {
            f = getClass().getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(name() + " cannot be instantiated", e);
        }
        f.arguments = AutoCdcCallContext.arguments(name(), call, statics);
        if (f.arguments.applyAsDeletes != null) {
            RowType input =
                    (RowType) AutoCdcCallContext.input(name(), call).dataType().getLogicalType();
            f.delete = DeleteExpression.of(context, name(), f.arguments.applyAsDeletes, input);
        }
        return f;
    }

    /**
     * Plans the call (failing on a bad argument) and returns the target's columns without the keys.
     */
    private Optional<DataType> outputType(CallContext call, List<StaticArgument> statics) {
        AutoCdcArguments args = AutoCdcCallContext.arguments(name(), call, statics);
        TableSemantics input = AutoCdcCallContext.input(name(), call);
        AutoCdcPlan plan =
                AutoCdcPlan.of(
                        name(),
                        (RowType) input.dataType().getLogicalType(),
                        input.partitionByColumns(),
                        args,
                        OutputMode.RETRACT);
        if (upsertWhenPossible() && plan.spec().flow().targetType() != TargetType.SCD1) {
            throw AutoCdcPlan.error(
                    name(),
                    "stored_as",
                    "must be 'SCD TYPE 1': an upsert changelog is keyed by the PARTITION BY"
                        + " columns, which identify a row of a type 1 target only; use AUTO_CDC for"
                        + " type 2 and bitemporal targets (retract mode, into any sink)");
        }
        return Optional.of(
                TypeConversions.fromLogicalToDataType(plan.outputType()).bridgedTo(RowData.class));
    }
}
