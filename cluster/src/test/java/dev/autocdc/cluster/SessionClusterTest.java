package dev.autocdc.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.embedded.kafka.EmbeddedKafka;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cluster jar on a standalone session cluster of separate processes ({@code
 * deploy/local-cluster}), submitted as users submit it: with {@code flink run}, and through the
 * REST API the web dashboard and a {@code FlinkSessionJob} use. Each job reads a Kafka topic of the
 * test's in-JVM broker and writes an upsert-kafka topic, which must equal the reference model's
 * table; each is then cancelled. Stopping the cluster leaves no process.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Order(5) // long: started first (docs/testing.md)
class SessionClusterTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static EmbeddedKafka kafka;
    private static LocalCluster cluster;
    private static String started;

    @TempDir static Path dir;

    @BeforeAll
    static void start() throws Exception {
        kafka = EmbeddedKafka.start();
        // the smallest task heap a TaskManager takes: the flows' caches shrink to their floor
        cluster =
                new LocalCluster(
                        dir.resolve("cluster"), "taskmanager.memory.task.heap.size: 0m", Map.of());
        started = cluster.start("--taskmanagers", "1", "--slots", "2");
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (cluster != null) {
                cluster.stop();
            }
        } finally {
            if (kafka != null) {
                kafka.close();
            }
        }
    }

    @Test
    @Order(1)
    void startPrintsTheDashboardAddress() throws Exception {
        assertThat(started).contains("web dashboard at http://localhost:" + cluster.restPort);
        assertThat(cluster.get("/overview")).contains("\"taskmanagers\":1", "\"slots-total\":2");
    }

    @Test
    @Order(2)
    void flinkRunSubmitsTheClusterJar() throws Exception {
        Scd2Workload w = new Scd2Workload(14, 300, 8);
        Topics.produce(kafka, "cdc_run", w.lines, 3);
        Path flow = dir.resolve("run.sql");
        Files.writeString(
                flow, Scd2Workload.flow(kafka.bootstrapServers(), "cdc_run", "hist_run", false));
        Path log = dir.resolve("flink-run.log");
        Process client =
                cluster.flink(
                        log,
                        "run",
                        LocalCluster.clusterJar().toString(),
                        "run",
                        "--flow",
                        flow.toString());
        try {
            String job = cluster.onlyJobId(Duration.ofMinutes(2));
            Topics.awaitRows(kafka, "hist_run", w.expected(), Duration.ofMinutes(3));
            // the TaskManager's Prometheus endpoint (config.yaml's reporter) holds the flow's
            // counts
            PrometheusText metrics = PrometheusText.scrape(cluster.prometheusPort("taskmanager-1"));
            assertThat(metrics.sum("_flow_num_input_rows", "apply_cdc"))
                    .isEqualTo(w.lines.size() - w.malformed);
            assertThat(metrics.sum("_flow_reason_num_dead_letters", "apply_cdc"))
                    .isEqualTo(w.malformed);
            // no task heap: each subtask's cache at its floor, full, and the job exact
            assertThat(metrics.of("_flow_state_cache_budget_bytes", "apply_cdc"))
                    .isNotEmpty()
                    .allSatisfy(s -> assertThat(s.value()).isEqualTo(64 * 1024.0));
            assertThat(metrics.max("_flow_state_cache_bytes", "apply_cdc"))
                    .isBetween(1.0, 64 * 1024.0);
            assertThat(metrics.sum("_flow_state_cache_keys", "apply_cdc")).isBetween(1.0, 300.0);
            Process cancel = cluster.flink(dir.resolve("flink-cancel.log"), "cancel", job);
            assertThat(cancel.waitFor(2, TimeUnit.MINUTES)).isTrue();
            assertThat(cancel.exitValue())
                    .as(Files.readString(dir.resolve("flink-cancel.log")))
                    .isZero();
            cluster.awaitJobState(job, "CANCELED", Duration.ofMinutes(1));
            // the attached client sees its job end and ends too
            assertThat(client.waitFor(1, TimeUnit.MINUTES)).as(Files.readString(log)).isTrue();
        } finally {
            client.destroyForcibly();
        }
        assertThat(Files.readString(log)).contains("Job has been submitted with JobID");
    }

    @Test
    @Order(3)
    void theDashboardsRestApiRunsTheUploadedJar() throws Exception {
        Scd2Workload w = new Scd2Workload(15, 200, 6);
        Topics.produce(kafka, "cdc_rest", w.lines, 2);
        Path flow = dir.resolve("rest.sql");
        Files.writeString(
                flow, Scd2Workload.flow(kafka.bootstrapServers(), "cdc_rest", "hist_rest", false));
        // what the dashboard's "Submit" sends: the program's arguments, nothing else
        ObjectNode body = JSON.createObjectNode();
        body.putArray("programArgsList").add("run").add("--flow").add(flow.toString());
        var run =
                cluster.send(
                        HttpRequest.newBuilder(
                                        cluster.rest("/jars/" + cluster.uploadedJar() + "/run"))
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(body.toString())));
        assertThat(run.statusCode()).as(run.body()).isEqualTo(200);
        String job = JSON.readTree(run.body()).path("jobid").asText("");
        assertThat(job).as(run.body()).matches("[0-9a-f]{32}");
        Topics.awaitRows(kafka, "hist_rest", w.expected(), Duration.ofMinutes(3));
        cluster.cancel(job);
        cluster.awaitJobState(job, "CANCELED", Duration.ofMinutes(1));
        // a triggered run cannot watch its job from there: it says so, naming the job to cancel
        body.putArray("programArgsList")
                .add("run")
                .add("--flow")
                .add(flow.toString())
                .add("--available-now")
                .add("--savepoint-dir")
                .add(dir.resolve("rest-savepoints").toUri().toString());
        var triggered =
                cluster.send(
                        HttpRequest.newBuilder(
                                        cluster.rest("/jars/" + cluster.uploadedJar() + "/run"))
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(body.toString())));
        assertThat(triggered.body())
                .as("status " + triggered.statusCode())
                .contains("the dashboard's REST API cannot");
        var named = Pattern.compile("job ([0-9a-f]{32}) runs on").matcher(triggered.body());
        assertThat(named.find()).as(triggered.body()).isTrue();
        String submitted = named.group(1);
        cluster.cancel(submitted);
        cluster.awaitJobState(submitted, "CANCELED", Duration.ofMinutes(1));
    }

    /**
     * Triggered runs on the cluster ({@code flink run ... run --available-now}): each reads the
     * topic up to its ends at the start, stops with a savepoint into the directory and ends; the
     * second, after more events (bad records among them), starts from that savepoint. The history
     * equals the workload's, each event applied once.
     */
    @Test
    @Order(4)
    void flinkRunAvailableNowCatchesUpStopsAndTheNextRunResumes() throws Exception {
        Scd2Workload w = new Scd2Workload(16, 200, 6);
        int half = w.lines.size() / 2;
        Topics.produce(kafka, "cdc_now", w.lines.subList(0, half), 2);
        Path flow = dir.resolve("now.sql");
        Files.writeString(
                flow, Scd2Workload.flow(kafka.bootstrapServers(), "cdc_now", "hist_now", false));
        Path savepoints = dir.resolve("now-savepoints");
        for (int run = 0; run < 2; run++) {
            if (run == 1) {
                Topics.append(kafka, "cdc_now", w.lines.subList(half, w.lines.size()), 2);
            }
            Path log = dir.resolve("flink-now-" + run + ".log");
            Process client =
                    cluster.flink(
                            log,
                            "run",
                            LocalCluster.clusterJar().toString(),
                            "run",
                            "--flow",
                            flow.toString(),
                            "--available-now",
                            "--savepoint-dir",
                            savepoints.toUri().toString());
            try {
                assertThat(client.waitFor(3, TimeUnit.MINUTES)).as(Files.readString(log)).isTrue();
            } finally {
                client.destroyForcibly();
            }
            String said = Files.readString(log);
            assertThat(client.exitValue()).as(said).isZero();
            assertThat(said).contains("caught up to the offsets noted at the start");
            if (run == 1) {
                assertThat(said).contains("starting from savepoint");
            }
        }
        Topics.awaitRows(kafka, "hist_now", w.expected(), Duration.ofMinutes(1));
    }

    @Test
    @Order(5)
    void stopLeavesNoProcess() throws Exception {
        List<Long> pids = cluster.pids();
        assertThat(pids).hasSize(2);
        assertThat(pids).allMatch(LocalCluster::alive);
        assertThat(cluster.status().output())
                .contains("jobmanager: running (pid", "taskmanager-1: running (pid");
        LocalCluster.Result r = cluster.stop();
        assertThat(r.code()).as(r.output()).isZero();
        assertThat(r.output()).contains("local-cluster: stopped");
        assertThat(pids).noneMatch(LocalCluster::alive);
        assertThat(cluster.pids()).isEmpty();
        assertThat(cluster.status().output()).contains("local-cluster: nothing runs from");
    }
}
