package dev.autocdc.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.cluster.LakeTables.Lake;
import dev.autocdc.embedded.kafka.EmbeddedKafka;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Nothing lost, nothing twice, when the TaskManager dies: SCD type 2 and bitemporal flows read a
 * Kafka topic while it is being written, on a cluster of processes with RocksDB and incremental
 * checkpoints every 2 s, and the test kills the TaskManager with SIGKILL at random moments and
 * starts a new one, each kill 0.5 to 3 s after a checkpoint completed since the last recovery, so
 * that the job restores from a checkpoint with rows written after it. The flows write upsert-kafka
 * topics and {@code kafka} changelog topics ({@code debezium-json}), with exactly-once delivery
 * (transactions), read with {@code read_committed}. Every target equals the reference model, and
 * the transactional changelogs are well formed: no {@code -U}/{@code -D} of a row that is not
 * there, no {@code +I}/{@code +U} of a key that is. The exactly-once changelog flows and the SCD1
 * flow keep a write-back cache of hot state (100 and 500 of the 1,000 keys, so keys are evicted all
 * the time), which must be in every checkpoint; the upsert flows and the lake flows keep the
 * default cache, bounded by the TaskManager's task heap (all 1,000 keys fit). Two more SCD type 2
 * flows write lake tables in local warehouses, an Apache Paimon table and an Apache Iceberg table
 * (upsert, parallelism 2, so that many keys are inserted and closed between two checkpoints), which
 * commit at checkpoints; each, read back in batch with the format's own API, holds every row of the
 * reference model once and nothing else.
 *
 * <p>It runs twice: with aligned checkpoints, as above, and with unaligned ones ({@code
 * execution.checkpointing.unaligned.enabled}: the records in flight between the source and the
 * flows are part of each checkpoint, and the caches are flushed before each barrier all the same),
 * then without the lake flows, since Paimon's sink refuses unaligned checkpoints, and with one kill
 * ({@code -Dautocdc.kill.unaligned-kills}).
 *
 * <p>Sizes: {@code -Dautocdc.kill.keys} (default 1,000), {@code -Dautocdc.kill.events-per-key}
 * (20), {@code -Dautocdc.kill.kills} (3); {@code -Dautocdc.kill.converge-minutes} (5) bounds the
 * wait for each target after the last event; docs/reliability.md has the full-size runs. Three
 * kills are the size that proves the property: each restores from a checkpoint while events still
 * arrive, the first one early (in the runs measured, before the lake tables' first commit) and the
 * others after commits with rows written since ({@code target/kill-figures.txt} says which); more
 * kills repeat these cases. The caches (100 and 500 keys) hold at most half of the 1,000 keys, so
 * keys are evicted throughout, and 20 events a key give each key many versions. The job's progress
 * every 15 s goes to {@code target/kill-progress.txt}, the cluster's logs to {@code
 * target/kill-logs}.
 */
@Order(1) // long: started first (docs/testing.md)
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

    @ParameterizedTest(name = "unaligned checkpoints: {0}")
    @ValueSource(booleans = {false, true})
    void killedTaskManagersLoseNothingAndDoubleNothing(boolean unaligned) throws Exception {
        int keys = Integer.getInteger("autocdc.kill.keys", 1_000);
        int perKey = Integer.getInteger("autocdc.kill.events-per-key", 20);
        int kills =
                unaligned
                        ? Integer.getInteger("autocdc.kill.unaligned-kills", 1)
                        : Integer.getInteger("autocdc.kill.kills", 3);
        List<Lake> lakes = unaligned ? List.of() : List.of(Lake.values());
        HistoryWorkload w = new HistoryWorkload(15, keys, perKey);
        Random random = new Random(151);
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            kafka.createTopic("events", 4);
            for (String t :
                    List.of("scd1_upsert", "scd2_upsert", "scd2_eo", "bt_upsert", "bt_eo")) {
                kafka.createTopic(t, 2);
            }
            kafka.createTopic("scd1_letters", 1);
            List<String> lines = KillFlows.withBadRecords(w.lines, 500);
            int bad = lines.size() - w.lines.size();
            Path flow = dir.resolve("kill.sql");
            Files.writeString(
                    flow, KillFlows.kafkaFlows(kafka.bootstrapServers()) + lakeFlows(lakes));
            String conf =
                    unaligned ? CONF + "\nexecution.checkpointing.unaligned.enabled: true" : CONF;
            LocalCluster cluster = new LocalCluster(dir.resolve("cluster"), conf, Map.of());
            List<String> figures = new ArrayList<>();
            String run = unaligned ? "kill-unaligned" : "kill";
            Path progress = Path.of("target", run + "-progress.txt");
            Files.deleteIfExists(progress);
            ScheduledExecutorService monitor = Executors.newSingleThreadScheduledExecutor();
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
                awaitRunning(cluster, job, null, Duration.ofMinutes(2));
                long started = System.nanoTime();
                monitor.scheduleWithFixedDelay(
                        () -> {
                            String line;
                            try {
                                line = cluster.progress(job);
                            } catch (Exception e) {
                                line = e.toString();
                            }
                            append(
                                    progress,
                                    "%4d s %s"
                                            .formatted(
                                                    (System.nanoTime() - started) / 1_000_000_000,
                                                    line));
                        },
                        0,
                        15,
                        TimeUnit.SECONDS);
                // the events arrive while the TaskManager is killed, in 8 batches per kill, 2 s
                // apart
                CompletableFuture<Void> producing =
                        CompletableFuture.runAsync(() -> produce(kafka, lines, 8 * kills));
                long checkpoints = 0;
                for (int k = 1; k <= kills; k++) {
                    // after a checkpoint completed since the last recovery, so that the job
                    // restores from it, and the lakes have commits, rows written since and a
                    // checkpoint perhaps under way
                    checkpoints = awaitCheckpoint(cluster, job, checkpoints);
                    Thread.sleep(500 + random.nextInt(2_500));
                    String commits = lakeCommits(lakes);
                    long pid =
                            Long.parseLong(
                                    Files.readString(cluster.home.resolve("taskmanager-1.pid"))
                                            .strip());
                    String killed = taskManagers(cluster, job).iterator().next();
                    long killedAt = System.nanoTime();
                    new ProcessBuilder("kill", "-9", "" + pid).start().waitFor();
                    while (LocalCluster.alive(pid)) {
                        Thread.sleep(50);
                    }
                    LocalCluster.Result added = cluster.addTaskManager(1);
                    assertThat(added.code()).as(added.output()).isZero();
                    // until the JobManager notices the loss, the job still looks running there
                    awaitRunning(cluster, job, killed, Duration.ofMinutes(3));
                    figures.add(
                            "kill %d (after checkpoint %d; %s): running again after %.1f s"
                                    .formatted(
                                            k,
                                            checkpoints,
                                            commits,
                                            (System.nanoTime() - killedAt) / 1e9));
                }
                producing.get(5, TimeUnit.MINUTES);
                long produced = System.nanoTime();
                Set<List<Object>> scd2 = w.expectedScd2();
                Set<List<Object>> bitemporal = w.expectedBitemporal();
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
                        scd2,
                        converge);
                Topics.awaitTable(
                        kafka,
                        "bt_upsert",
                        Topics.Read.UPSERT,
                        HistoryWorkload.BITEMPORAL_COLUMNS,
                        bitemporal,
                        converge);
                Topics.awaitTable(
                        kafka,
                        "scd2_eo",
                        Topics.Read.CHANGELOG,
                        HistoryWorkload.SCD2_COLUMNS,
                        scd2,
                        converge);
                Topics.awaitTable(
                        kafka,
                        "bt_eo",
                        Topics.Read.CHANGELOG,
                        HistoryWorkload.BITEMPORAL_COLUMNS,
                        bitemporal,
                        converge);
                for (Lake lake : lakes) {
                    LakeTables.await(lake, warehouse(lake), "scd2", scd2, converge);
                }
                // one letter per bad record in the exactly-once letter topic, none twice
                List<String> letters = Topics.committedValues(kafka, "scd1_letters", bad, converge);
                for (int n = 0; n < bad; n++) {
                    String marker = KillFlows.marker(n);
                    assertThat(letters.stream().filter(l -> l.contains(marker)).count())
                            .as("letters of %s in %s", marker, letters)
                            .isEqualTo(1);
                }
                assertThat(letters).hasSize(bad);
                assertThat(cluster.get("/jobs/" + job + "/exceptions"))
                        .contains("exceptionHistory");
                if (unaligned) { // the checkpoints were unaligned ones indeed
                    assertThat(cluster.get("/jobs/" + job + "/checkpoints"))
                            .contains("\"checkpoint_type\":\"UNALIGNED_CHECKPOINT\"");
                }
                figures.add("at the end: " + lakeCommits(lakes));
                figures.add(
                        "every target equal to the reference %.0f s after the last event was written;"
                                        .formatted((System.nanoTime() - produced) / 1e9)
                                + " then "
                                + cluster.progress(job));
                figures.add(
                        "%d events over %d keys, %d kills, %s checkpoints; SCD2 %d rows (in 2"
                                        .formatted(
                                                w.lines.size(),
                                                keys,
                                                kills,
                                                unaligned ? "unaligned" : "aligned",
                                                scd2.size())
                                + " topics, %d lake tables), bitemporal %d rows (in 2 topics); 0"
                                        .formatted(lakes.size(), bitemporal.size())
                                + " lost,".formatted(bitemporal.size())
                                + " 0 twice, 0 malformed changelog rows; %d bad records, %d"
                                        .formatted(bad, letters.size())
                                + " letters, each once");
            } finally {
                monitor.shutdownNow();
                cluster.stop();
                System.out.println("TaskManagerKillTest: " + String.join("; ", figures));
                Files.writeString(
                        Path.of("target", run + "-figures.txt"), String.join("\n", figures) + "\n");
                cluster.keepLogs(Path.of("target", run + "-logs"));
            }
        }
    }

    /** Each lake table's commits so far ({@link LakeTables#commits}). */
    private String lakeCommits(List<Lake> lakes) throws Exception {
        List<String> commits = new ArrayList<>();
        for (Lake lake : lakes) {
            commits.add(lake + " " + LakeTables.commits(lake, warehouse(lake), "scd2"));
        }
        return String.join(", ", commits);
    }

    /** Waits until the job has completed more than {@code after} checkpoints; the number it has. */
    private static long awaitCheckpoint(LocalCluster cluster, String job, long after)
            throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (System.nanoTime() < deadline) {
            long completed =
                    JSON.readTree(cluster.get("/jobs/" + job + "/checkpoints"))
                            .path("counts")
                            .path("completed")
                            .asLong();
            if (completed > after) {
                return completed;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("no checkpoint after " + after + " in 3 minutes");
    }

    private Path warehouse(Lake lake) {
        return dir.resolve(lake.name().toLowerCase(Locale.ROOT) + "-warehouse");
    }

    /**
     * An SCD type 2 flow over the same source into a table of each lake ({@code
     * lake_paimon.db.scd2}, {@code lake_iceberg.db.scd2}), which the first run creates.
     */
    private String lakeFlows(List<Lake> lakes) {
        StringBuilder sql = new StringBuilder();
        for (Lake lake : lakes) {
            sql.append(LakeTables.scd2Flow(lake, warehouse(lake), "scd2"));
        }
        return sql.toString();
    }

    /**
     * Writes the lines to the source topic in {@code batches} batches, 2 s apart: through the first
     * kills.
     */
    private static void produce(EmbeddedKafka kafka, List<String> lines, int batches) {
        int size = (lines.size() + batches - 1) / batches;
        try {
            for (int from = 0; from < lines.size(); from += size) {
                Topics.append(
                        kafka,
                        "events",
                        lines.subList(from, Math.min(lines.size(), from + size)),
                        4);
                Thread.sleep(2_000);
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void append(Path file, String line) {
        try {
            Files.writeString(
                    file, line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Waits until the job and every one of its tasks run, none of them on the TaskManager {@code
     * notOn} (null: anywhere).
     */
    private static void awaitRunning(
            LocalCluster cluster, String job, String notOn, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        String seen = "";
        while (System.nanoTime() < deadline) {
            seen = cluster.get("/jobs/" + job);
            JsonNode n = JSON.readTree(seen);
            if ("RUNNING".equals(n.path("state").asText()) && n.path("vertices").size() > 0) {
                Set<String> on = taskManagers(cluster, job);
                if (!on.contains("") && !on.contains(notOn)) {
                    return;
                }
            }
            Thread.sleep(500);
        }
        throw new AssertionError("job " + job + " not running after " + timeout + ": " + seen);
    }

    /**
     * The TaskManagers that the job's tasks run on, from each vertex's subtasks; "" stands for a
     * task that is not running.
     */
    private static Set<String> taskManagers(LocalCluster cluster, String job) throws Exception {
        Set<String> on = new HashSet<>();
        for (JsonNode v : JSON.readTree(cluster.get("/jobs/" + job)).path("vertices")) {
            JsonNode vertex =
                    JSON.readTree(
                            cluster.get("/jobs/" + job + "/vertices/" + v.path("id").asText()));
            for (JsonNode t : vertex.path("subtasks")) {
                on.add(
                        "RUNNING".equals(t.path("status").asText())
                                ? t.path("taskmanager-id").asText()
                                : "");
            }
        }
        return on;
    }
}
