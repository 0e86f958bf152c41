package dev.autocdc.benchmarks;

import dev.autocdc.embedded.kafka.EmbeddedKafka;
import dev.autocdc.job.cli.AutoCdcCli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamStatementSet;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The Kafka end-to-end pair on the in-JVM broker: the workload pre-loaded as JSON change records in
 * a one-partition topic (not timed), then, timed from submission to the end of the bounded read:
 *
 * <ul>
 *   <li>{@code kafka_passthrough}: Kafka (JSON, Flink SQL table) -> keyBy -> map -> upsert-kafka,
 *       no state;
 *   <li>{@code kafka_passthrough_double}: the same, writing every record twice: SCD2 writes about
 *       two records per event (the closed version and the new one), so this bounds what SCD2 can
 *       reach with a free engine (not in {@code run.sh}: an experiment for the explanation in
 *       docs/performance.md);
 *   <li>{@code kafka_scd2}: the product: a flow script run by the CLI (RocksDB, parallelism 1), SCD
 *       type 2 from the same topic into an upsert-kafka topic; the flow reads the topic as bytes
 *       and decodes it itself, checking numbers (the default);
 *   <li>{@code kafka_scd2_flink_decoding}: the same with {@code bad-records = 'fail'}: the source
 *       parses its records itself, so the pair prices the flow's decoding step.
 * </ul>
 *
 * Both parse with Flink's JSON format and write JSON with upsert-kafka, so the difference is the
 * engine.
 */
final class KafkaBenchmark {
    private static final String COLUMNS =
            "k BIGINT, a INT, b STRING, c BIGINT, seq BIGINT, op STRING";

    private KafkaBenchmark() {}

    static void run(String variant, Workload w) throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            kafka.createTopic("changes", 1);
            kafka.createTopic("target", 1);
            preload(kafka, w);
            String source =
                    "CREATE TABLE changes ("
                            + COLUMNS
                            + ") WITH ('connector' = 'kafka', 'topic' = 'changes',"
                            + " 'properties.bootstrap.servers' = '"
                            + kafka.bootstrapServers()
                            + "', 'properties.group.id' = 'bench', 'scan.startup.mode' ="
                            + " 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format'"
                            + " = 'json')";
            String sinkOptions =
                    "WITH ('connector' = 'upsert-kafka', 'topic' = 'target',"
                            + " 'properties.bootstrap.servers' = '"
                            + kafka.bootstrapServers()
                            + "', 'key.format' = 'json', 'value.format' = 'json')";
            long start = System.nanoTime();
            if (variant.equals("kafka_passthrough") || variant.equals("kafka_passthrough_double")) {
                passthrough(source, sinkOptions, variant.endsWith("_double") ? 2 : 1);
            } else if (variant.equals("kafka_scd2")) {
                scd2(source, sinkOptions, "");
            } else if (variant.equals("kafka_scd2_copying")) {
                // without the CLI's default object reuse: Flink copies each record at every
                // chained hop
                scd2(source, sinkOptions, "", "-Dpipeline.object-reuse=false");
            } else if (variant.equals("kafka_scd2_flink_decoding")) {
                // the source reads its records itself: the cost of the flow's own decoding step
                scd2(source, sinkOptions, "SET 'autocdc.w1.bad-records' = 'fail';\n");
            } else {
                throw new IllegalArgumentException("unknown variant " + variant);
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf(
                    "result variant=%s backend=rocksdb workload=%s events=%d millis=%.0f"
                        + " events_per_s=%.0f peak_rss_mb=%d first_fifth_per_s=0 last_fifth_per_s=0"
                        + " state_bytes=-1 versions=0 row_bytes=0 alloc_bytes_per_event=-1%n",
                    variant,
                    w.name,
                    w.events,
                    seconds * 1000,
                    w.events / seconds,
                    BenchmarkJob.peakRssMb());
        }
    }

    private static void preload(EmbeddedKafka kafka, Workload w) throws Exception {
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(
                        Map.of(
                                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                                kafka.bootstrapServers(),
                                ProducerConfig.LINGER_MS_CONFIG,
                                20,
                                ProducerConfig.BATCH_SIZE_CONFIG,
                                512 * 1024,
                                ProducerConfig.ACKS_CONFIG,
                                "1"),
                        new StringSerializer(),
                        new StringSerializer())) {
            for (long i = 0; i < w.events; i++) {
                producer.send(new ProducerRecord<>("changes", Long.toString(w.key(i)), w.json(i)));
            }
            producer.flush();
        }
    }

    private static void passthrough(String source, String sinkOptions, int copies)
            throws Exception {
        Configuration conf = new Configuration();
        conf.setString("state.backend.type", "rocksdb");
        conf.setString("pipeline.object-reuse", "true"); // as the CLI runs kafka_scd2's flow
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.executeSql(source);
        tEnv.executeSql(
                "CREATE TABLE target ("
                        + COLUMNS
                        + ", PRIMARY KEY (k) NOT ENFORCED) "
                        + sinkOptions);
        Table changes = tEnv.from("changes");
        RowType rowType =
                (RowType) changes.getResolvedSchema().toPhysicalRowDataType().getLogicalType();
        DataStream<RowData> rows =
                tEnv.toDataStream(
                        changes,
                        changes.getResolvedSchema()
                                .toPhysicalRowDataType()
                                .bridgedTo(RowData.class));
        DataStream<RowData> keyed =
                copies == 1
                        ? rows.keyBy(r -> r.getLong(0))
                                .map(r -> r)
                                .returns(InternalTypeInfo.of(rowType))
                        : rows.keyBy(r -> r.getLong(0))
                                .flatMap(
                                        (RowData r, Collector<RowData> out) -> {
                                            for (int i = 0; i < copies; i++) {
                                                out.collect(r);
                                            }
                                        })
                                .returns(InternalTypeInfo.of(rowType));
        StreamStatementSet set = tEnv.createStatementSet();
        set.addInsert(
                "target",
                tEnv.fromDataStream(
                        keyed,
                        Schema.newBuilder()
                                .fromRowDataType(
                                        changes.getResolvedSchema().toPhysicalRowDataType())
                                .build()));
        set.attachAsDataStream();
        env.execute("kafka_passthrough");
    }

    private static void scd2(
            String source, String sinkOptions, String settings, String... cliOptions)
            throws Exception {
        Path flow = Files.createTempFile("autocdc-bench", ".sql");
        Files.writeString(
                flow,
                "SET 'state.backend.type' = 'rocksdb';\n"
                        + settings
                        + source
                        + ";\n"
                        + "CREATE OR REFRESH STREAMING TABLE history "
                        + sinkOptions
                        + ";\n"
                        + "CREATE FLOW w1 AS AUTO CDC INTO history FROM STREAM(changes) KEYS (k)\n"
                        + "APPLY AS DELETE WHEN op = 'D' SEQUENCE BY seq COLUMNS * EXCEPT (op, seq)"
                        + " STORED AS SCD TYPE 2;\n");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code =
                new AutoCdcCli(
                                new PrintStream(new ByteArrayOutputStream()),
                                new PrintStream(err, true, StandardCharsets.UTF_8))
                        .run(
                                Stream.concat(
                                                Stream.of(
                                                        "run",
                                                        "--flow",
                                                        flow.toString(),
                                                        "--parallelism",
                                                        "1"),
                                                Stream.of(cliOptions))
                                        .toArray(String[]::new));
        Files.delete(flow);
        if (code != 0) {
            throw new IllegalStateException("the flow job failed: " + err);
        }
    }
}
