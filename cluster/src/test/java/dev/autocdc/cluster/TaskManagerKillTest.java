package dev.autocdc.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.embedded.EmbeddedKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nothing lost, nothing twice, when the TaskManager dies: SCD type 2 and bitemporal flows read a
 * Kafka topic while it is being written, on a cluster of processes with RocksDB and incremental
 * checkpoints every 2 s, and the test kills the TaskManager with SIGKILL at random moments and
 * starts a new one. The flows write upsert-kafka topics and {@code kafka} changelog topics ({@code
 * debezium-json}), with exactly-once delivery (transactions), read with {@code read_committed}.
 * Every target equals the reference model, and the transactional changelogs are well formed: no
 * {@code -U}/{@code -D} of a row that is not there, no {@code +I}/{@code +U} of a key that is.
 *
 * <p>Sizes: {@code -Dautocdc.kill.keys} (default 2,000), {@code -Dautocdc.kill.events-per-key}
 * (20), {@code -Dautocdc.kill.kills} (5); {@code -Dautocdc.kill.converge-minutes} (5) bounds the
 * wait for each target after the last event; docs/reliability.md has the full-size runs.
 */
class TaskManagerKillTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static final String CONF =
            String.join(
                    "\n",
                    "execution.checkpointing.interval: 2s",
                    "restart-strategy.type: fixed-delay",
                    "restart-strategy.fixed-delay.attempts: 1000",
                    "restart-strategy.fixed-delay.delay: 1s",
                    "heartbeat.interval: 1000",
                    "heartbeat.timeout: 8000");

    @TempDir Path dir;

    @Test
    void killedTaskManagersLoseNothingAndDoubleNothing() throws Exception {
        int keys = Integer.getInteger("autocdc.kill.keys", 2_000);
        int perKey = Integer.getInteger("autocdc.kill.events-per-key", 20);
        int kills = Integer.getInteger("autocdc.kill.kills", 5);
        HistoryWorkload w = new HistoryWorkload(15, keys, perKey);
        Random random = new Random(151);
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            kafka.createTopic("events", 4);
            for (String t :
                    List.of("scd1_upsert", "scd2_upsert", "scd2_eo", "bt_upsert", "bt_eo")) {
                kafka.createTopic(t, 2);
            }
            Path flow = dir.resolve("kill.sql");
            Files.writeString(flow, flow(kafka.bootstrapServers()));
            LocalCluster cluster = new LocalCluster(dir.resolve("cluster"), CONF, Map.of());
            List<String> figures = new ArrayList<>();
            try {
                cluster.start("--taskmanagers", "1", "--slots", "2");
                Process client =
                        cluster.flink(
                                dir.resolve("client.log"),
                                "run",
                                "--detached",
                                LocalCluster.clusterJar().toString(),
                                "run",
                                "--flow",
                                flow.toString(),
                                "--parallelism",
                                "2");
                assertThat(client.waitFor(3, TimeUnit.MINUTES)).isTrue();
                assertThat(client.exitValue())
                        .as(Files.readString(dir.resolve("client.log")))
                        .isZero();
                String job = cluster.onlyJobId(Duration.ofMinutes(1));
                awaitRunning(cluster, job, Duration.ofMinutes(2));
                // the events arrive while the TaskManager is killed, in 40 batches
                CompletableFuture<Void> producing =
                        CompletableFuture.runAsync(() -> produce(kafka, w.lines, 40));
                for (int k = 1; k <= kills; k++) {
                    Thread.sleep(2_000 + random.nextInt(4_000));
                    long pid =
                            Long.parseLong(
                                    Files.readString(cluster.home.resolve("taskmanager-1.pid"))
                                            .strip());
                    long killedAt = System.nanoTime();
                    new ProcessBuilder("kill", "-9", "" + pid).start().waitFor();
                    while (LocalCluster.alive(pid)) {
                        Thread.sleep(50);
                    }
                    LocalCluster.Result added = cluster.addTaskManager(1);
                    assertThat(added.code()).as(added.output()).isZero();
                    awaitRunning(cluster, job, Duration.ofMinutes(3));
                    figures.add(
                            "kill %d: running again after %.1f s"
                                    .formatted(k, (System.nanoTime() - killedAt) / 1e9));
                }
                producing.get(5, TimeUnit.MINUTES);
                Duration converge =
                        Duration.ofMinutes(Integer.getInteger("autocdc.kill.converge-minutes", 5));
                Topics.awaitTable(
                        kafka,
                        "scd1_upsert",
                        Topics.Read.UPSERT,
                        HistoryWorkload.SCD1_COLUMNS,
                        w.expectedScd1(),
                        converge);
                Topics.awaitTable(
                        kafka,
                        "scd2_upsert",
                        Topics.Read.UPSERT,
                        HistoryWorkload.SCD2_COLUMNS,
                        w.expectedScd2(),
                        converge);
                Topics.awaitTable(
                        kafka,
                        "bt_upsert",
                        Topics.Read.UPSERT,
                        HistoryWorkload.BITEMPORAL_COLUMNS,
                        w.expectedBitemporal(),
                        converge);
                Topics.awaitTable(
                        kafka,
                        "scd2_eo",
                        Topics.Read.CHANGELOG,
                        HistoryWorkload.SCD2_COLUMNS,
                        w.expectedScd2(),
                        converge);
                Topics.awaitTable(
                        kafka,
                        "bt_eo",
                        Topics.Read.CHANGELOG,
                        HistoryWorkload.BITEMPORAL_COLUMNS,
                        w.expectedBitemporal(),
                        converge);
                assertThat(cluster.get("/jobs/" + job + "/exceptions"))
                        .contains("exceptionHistory");
                figures.add(
                        "%d events over %d keys, %d kills; SCD2 %d rows, bitemporal %d rows; 0 lost,"
                                        .formatted(
                                                w.lines.size(),
                                                keys,
                                                kills,
                                                w.expectedScd2().size(),
                                                w.expectedBitemporal().size())
                                + " 0 malformed changelog rows");
            } finally {
                cluster.stop();
                System.out.println("TaskManagerKillTest: " + String.join("; ", figures));
                Files.writeString(
                        Path.of("target", "kill-figures.txt"), String.join("\n", figures) + "\n");
            }
        }
    }

    /**
     * Five flows over one source: SCD2 and bitemporal, each into upsert-kafka and into a {@code
     * kafka} changelog, all with exactly-once delivery; and SCD1 into upsert-kafka at least once. A
     * changelog topic keeps each subtask's rows in one partition ({@code 'sink.partitioner' =
     * 'fixed'}), so a key's rows stay in order.
     */
    private static String flow(String bootstrap) {
        String exactlyOnce =
                "'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' ="
                        + " 'autocdc-kill-%s', 'properties.transaction.timeout.ms' = '600000'";
        StringBuilder sql =
                new StringBuilder(
                        """
                        CREATE TABLE src (id INT, v STRING, op STRING, seq INT, sys INT)
                        WITH ('connector' = 'kafka', 'topic' = 'events', 'properties.bootstrap.servers' = '%s',
                              'properties.group.id' = 'kill', 'scan.startup.mode' = 'earliest-offset',
                              'format' = 'json');
                        CREATE OR REFRESH STREAMING TABLE scd1_upsert
                        WITH ('connector' = 'upsert-kafka', 'topic' = 'scd1_upsert', 'properties.bootstrap.servers' = '%s',
                              'key.format' = 'json', 'value.format' = 'json', %s);
                        CREATE FLOW scd1_flow AS AUTO CDC INTO scd1_upsert FROM STREAM(src)
                        KEYS (id) APPLY AS DELETE WHEN op = 'DELETE' SEQUENCE BY seq
                        COLUMNS * EXCEPT (op, seq, sys) STORED AS SCD TYPE 1;
                        """
                                .formatted(bootstrap, bootstrap, exactlyOnce.formatted("scd1")));
        for (String type : List.of("scd2", "bt")) {
            sql.append(
                    """
                    CREATE OR REFRESH STREAMING TABLE %1$s_upsert
                    WITH ('connector' = 'upsert-kafka', 'topic' = '%1$s_upsert', 'properties.bootstrap.servers' = '%2$s',
                          'key.format' = 'json', 'value.format' = 'json', %3$s);
                    CREATE OR REFRESH STREAMING TABLE %1$s_eo
                    WITH ('connector' = 'kafka', 'topic' = '%1$s_eo', 'properties.bootstrap.servers' = '%2$s',
                          'format' = 'debezium-json', 'sink.partitioner' = 'fixed', %4$s);
                    """
                            .formatted(
                                    type,
                                    bootstrap,
                                    exactlyOnce.formatted(type + "-u"),
                                    exactlyOnce.formatted(type + "-c")));
            for (String sink : List.of("upsert", "eo")) {
                sql.append(
                        """
                        CREATE FLOW %1$s_%2$s_flow AS AUTO CDC INTO %1$s_%2$s FROM STREAM(src)
                        KEYS (id) APPLY AS DELETE WHEN op = 'DELETE' SEQUENCE BY seq %3$s
                        COLUMNS * EXCEPT (op, seq, sys) STORED AS %4$s;
                        """
                                .formatted(
                                        type,
                                        sink,
                                        type.equals("bt") ? "SYSTEM SEQUENCE BY sys" : "",
                                        type.equals("bt") ? "BITEMPORAL" : "SCD TYPE 2"));
            }
        }
        return sql.toString();
    }

    private static void produce(EmbeddedKafka kafka, List<String> lines, int batches) {
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(
                        Map.of("bootstrap.servers", kafka.bootstrapServers(), "linger.ms", 5),
                        new StringSerializer(),
                        new StringSerializer())) {
            int size = (lines.size() + batches - 1) / batches;
            for (int b = 0; b * size < lines.size(); b++) {
                for (int i = b * size; i < Math.min(lines.size(), (b + 1) * size); i++) {
                    producer.send(new ProducerRecord<>("events", i % 4, null, lines.get(i)));
                }
                producer.flush();
                Thread.sleep(500);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Waits until the job and every one of its tasks run. */
    private static void awaitRunning(LocalCluster cluster, String job, Duration timeout)
            throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        String seen = "";
        while (System.nanoTime() < deadline) {
            seen = cluster.get("/jobs/" + job);
            JsonNode n = JSON.readTree(seen);
            boolean all = "RUNNING".equals(n.path("state").asText());
            for (JsonNode v : n.path("vertices")) {
                all &= "RUNNING".equals(v.path("status").asText());
            }
            if (all && n.path("vertices").size() > 0) {
                return;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("job " + job + " not running after " + timeout + ": " + seen);
    }
}
