package dev.autocdc.benchmarks;

import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.AutoCdc;
import dev.autocdc.operators.flink.spec.ControlColumn;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.spec.OutputMode;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.bridge.java.StreamStatementSet;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

/**
 * The job of one {@link BenchmarkJob} run: the generated workload ({@link Generate}), then the
 * variant's operators into a discarding sink; an unknown variant is refused.
 *
 * <p>Variants: {@code passthrough} (keyBy and map: the limit), {@code sql_dedup} and {@code
 * sql_dedup_minibatch} (Flink SQL keep-last-row deduplication on a rowtime made from the sequence,
 * into a blackhole sink), {@code naive_scd2} (all versions in one ListState, rewritten per event),
 * and the engine: {@code scd1}, {@code scd2}, {@code bitemporal} (upsert mode, no -U rows), each
 * also {@code _cached}; on W6, {@code snapshot_scd2}: a flow from snapshots, whose run ends when
 * the last snapshot's changes leave the engine.
 */
final class VariantPipeline {

    private VariantPipeline() {}

    static void build(StreamExecutionEnvironment env, RunSettings run) {
        String variant = run.variant;
        boolean bitemporal = variant.startsWith("bitemporal");
        RowType inputType = run.snapshots() ? snapshotInputType() : inputType(bitemporal);
        DataStream<RowData> source =
                source(env, run.workload, bitemporal, run.snapshots(), inputType);
        switch (variant) {
            case "passthrough":
                source.keyBy(r -> r.getLong(0))
                        .map(r -> r)
                        .returns(InternalTypeInfo.of(inputType))
                        .sinkTo(new DiscardingSink<>());
                break;
            case "naive_scd2":
                source.keyBy(r -> r.getLong(0))
                        .process(new NaiveScd2())
                        .returns(Types.LONG)
                        .sinkTo(new DiscardingSink<>());
                break;
            case "sql_dedup":
            case "sql_dedup_minibatch":
                sqlDedup(env, source, variant.endsWith("minibatch"));
                break;
            case "scd1":
            case "scd2":
            case "bitemporal":
            case "scd1_cached":
            case "scd2_cached":
            case "bitemporal_cached":
                engine(source, variant, inputType, run.cacheKeys);
                break;
            case "snapshot_scd2":
                snapshotScd2(source, variant, inputType, run.cacheKeys);
                break;
            default:
                throw new IllegalArgumentException("unknown variant " + variant);
        }
    }

    /**
     * The generated workload. It does not end by itself: after the workload it idles until the
     * driver stops the job with a savepoint, whose size is the state on disk after the last event.
     */
    private static DataStream<RowData> source(
            StreamExecutionEnvironment env,
            Workload w,
            boolean bitemporal,
            boolean snapshots,
            RowType inputType) {
        DataStream<RowData> source =
                env.fromSequence(0, Long.MAX_VALUE)
                        .flatMap(new Generate(w, bitemporal, snapshots))
                        .returns(InternalTypeInfo.of(inputType))
                        .name("generate " + w.name);
        if (snapshots) { // per snapshot: just below it, at it after its end row
            source =
                    source.assignTimestampsAndWatermarks(
                            WatermarkStrategy.forGenerator(c -> new SnapshotWatermarks()));
        }
        return source;
    }

    /** scd1, scd2 or bitemporal, each with or without the name {@code _cached}. */
    private static void engine(
            DataStream<RowData> source, String variant, RowType inputType, Integer cacheKeys) {
        TargetType type =
                variant.startsWith("scd1")
                        ? TargetType.SCD1
                        : variant.startsWith("scd2") ? TargetType.SCD2 : TargetType.BITEMPORAL;
        EngineSpec spec =
                EngineSpec.builder(variant, type, inputType)
                        .keys("k")
                        .outputMode(OutputMode.UPSERT)
                        .stateCacheKeys(cacheKeys)
                        .build();
        AutoCdc.apply(source, spec, InternalTypeInfo.of(spec.targetType()), "auto-cdc-" + variant)
                .sinkTo(new DiscardingSink<>());
    }

    /** SCD2 from snapshots; {@link LastOutput} marks when the last change left the engine. */
    private static void snapshotScd2(
            DataStream<RowData> source, String variant, RowType inputType, Integer cacheKeys) {
        EngineSpec spec =
                EngineSpec.builder(variant, TargetType.SCD2, inputType)
                        .keys("k")
                        .fromSnapshot()
                        .outputMode(OutputMode.UPSERT)
                        .stateCacheKeys(cacheKeys)
                        .build();
        AutoCdc.apply(source, spec, InternalTypeInfo.of(spec.targetType()), "auto-cdc-" + variant)
                .map(new LastOutput())
                .returns(InternalTypeInfo.of(spec.targetType()))
                .sinkTo(new DiscardingSink<>());
    }

    private static void sqlDedup(
            StreamExecutionEnvironment env, DataStream<RowData> source, boolean miniBatch) {
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        if (miniBatch) {
            tEnv.getConfig().getConfiguration().setString("table.exec.mini-batch.enabled", "true");
            tEnv.getConfig()
                    .getConfiguration()
                    .setString("table.exec.mini-batch.allow-latency", "1 s");
            tEnv.getConfig().getConfiguration().setString("table.exec.mini-batch.size", "5000");
        }
        tEnv.createTemporaryView(
                "src",
                tEnv.fromDataStream(
                        source,
                        Schema.newBuilder()
                                .column("k", "BIGINT NOT NULL")
                                .column("a", "INT")
                                .column("b", "STRING")
                                .column("c", "BIGINT")
                                .column(ControlColumn.SEQUENCE.columnName(), "BIGINT NOT NULL")
                                .column(ControlColumn.DELETE.columnName(), "BOOLEAN NOT NULL")
                                .columnByExpression(
                                        "rt",
                                        "TO_TIMESTAMP_LTZ(`"
                                                + ControlColumn.SEQUENCE.columnName()
                                                + "`, 3)")
                                .watermark("rt", "rt")
                                .build()));
        // a primary key on k: an upsert sink, so the deduplication emits upserts without -U rows,
        // as the engine does
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE sink (k BIGINT, a INT, b STRING, c BIGINT, PRIMARY KEY (k)"
                        + " NOT ENFORCED) WITH ('connector' = 'blackhole')");
        StreamStatementSet set = tEnv.createStatementSet();
        set.addInsertSql(
                "INSERT INTO sink SELECT k, a, b, c FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY"
                        + " k ORDER BY rt DESC) AS rn FROM src) WHERE rn = 1");
        set.attachAsDataStream();
    }

    /** W6 for the snapshot flow: k, a, b, c, __seq (the snapshot), __snapshot_end. */
    private static RowType snapshotInputType() {
        return RowType.of(
                new LogicalType[] {
                    new BigIntType(false),
                    new IntType(),
                    VarCharType.STRING_TYPE,
                    new BigIntType(),
                    new BigIntType(false),
                    new BooleanType(false)
                },
                new String[] {
                    "k",
                    "a",
                    "b",
                    "c",
                    ControlColumn.SEQUENCE.columnName(),
                    ControlColumn.SNAPSHOT_END.columnName()
                });
    }

    private static RowType inputType(boolean bitemporal) {
        List<LogicalType> types =
                new ArrayList<>(
                        List.of(
                                new BigIntType(false),
                                new IntType(),
                                VarCharType.STRING_TYPE,
                                new BigIntType(),
                                new BigIntType(false)));
        List<String> names =
                new ArrayList<>(List.of("k", "a", "b", "c", ControlColumn.SEQUENCE.columnName()));
        if (bitemporal) {
            types.add(new BigIntType(false));
            names.add(ControlColumn.SYSTEM_SEQUENCE.columnName());
        }
        types.add(new BooleanType(false));
        names.add(ControlColumn.DELETE.columnName());
        return RowType.of(types.toArray(new LogicalType[0]), names.toArray(new String[0]));
    }
}
