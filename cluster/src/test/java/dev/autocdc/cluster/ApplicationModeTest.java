package dev.autocdc.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.autocdc.embedded.kafka.EmbeddedKafka;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cluster jar in application mode, started as Flink's {@code standalone-job.sh} starts it:
 * {@code StandaloneApplicationClusterEntryPoint} with the jar in {@code usrlib/} and the CLI's
 * arguments (the Kubernetes operator's {@code mode: standalone} hides {@code usrlib/} and passes
 * the jar as {@code pipeline.classpaths}: {@link KubernetesApplicationTest}), ZooKeeper high
 * availability, and the JobManager kept up when the job ends ({@code
 * execution.shutdown-on-application-finish: false}, as the operator sets it). A good flow writes
 * the reference model's table and is cancelled; a bad flow is a FAILED job whose exception is the
 * flow's message, and the JobManager lives on (a {@code System.exit} in the job's main would have
 * killed it: the operator would see a crash loop). With HA or without, {@code start} itself exits 1
 * with the flow's message and the line of the column at fault.
 */
@Order(4) // long: started first (docs/testing.md)
class ApplicationModeTest {
    private static final String OPERATOR_LIKE = "execution.shutdown-on-application-finish: false";
    private static final String SECRET = "s3cr3t-from-a-kubernetes-secret";
    private static final String SECRET_COLUMN = "s3cr3t_column";

    /** Where {@link Scd2Workload#flow}'s KEYS clause is: line 9 (its statement starts on 8). */
    private static final String BAD_LINE = "line 9, ";

    private static EmbeddedKafka kafka;

    @TempDir Path dir;

    @BeforeAll
    static void broker() throws Exception {
        kafka = EmbeddedKafka.start();
    }

    @AfterAll
    static void stopBroker() {
        kafka.close();
    }

    @Test
    void theJobManagerRunsTheFlowAndACancelledJobIsCanceled() throws Exception {
        Scd2Workload w = new Scd2Workload(21, 250, 8);
        Topics.produce(kafka, "cdc_app", w.lines, 3);
        Path flow = dir.resolve("app.sql");
        // the topic and a (here unused) password from the environment, as a Secret reaches a pod;
        // the flow file by URI
        Files.writeString(
                flow,
                Scd2Workload.flow(kafka.bootstrapServers(), "${env:CDC_TOPIC}", "hist_app", false)
                        .replace(
                                "'format' = 'json');",
                                "'format' = 'json', 'properties.sasl.jaas.config' ="
                                    + " 'org.apache.kafka.common.security.plain.PlainLoginModule"
                                    + " required username=\"u\""
                                    + " password=\"${env:KAFKA_PASSWORD}\";');"));
        LocalCluster cluster =
                new LocalCluster(
                        dir.resolve("cluster"),
                        OPERATOR_LIKE,
                        Map.of("CDC_TOPIC", "cdc_app", "KAFKA_PASSWORD", SECRET));
        try {
            cluster.start(
                    "--ha",
                    "--zookeeper-port",
                    "" + LocalCluster.freePort(),
                    "--application",
                    LocalCluster.clusterJar().toString(),
                    "run",
                    "--flow",
                    flow.toUri().toString());
            String job = cluster.onlyJobId(Duration.ofMinutes(2));
            Topics.awaitRows(kafka, "hist_app", w.expected(), Duration.ofMinutes(3));
            assertThat(cluster.jobState(job)).isEqualTo("RUNNING");
            var cancel =
                    cluster.send(
                            HttpRequest.newBuilder(cluster.rest("/jobs/" + job + "?mode=cancel"))
                                    .method("PATCH", HttpRequest.BodyPublishers.noBody()));
            assertThat(cancel.statusCode()).as(cancel.body()).isEqualTo(202);
            cluster.awaitJobState(job, "CANCELED", Duration.ofMinutes(1));
            // the value never reaches a log of the cluster's processes
            try (var logs = Files.list(cluster.home.resolve("log"))) {
                for (Path log : logs.toList()) {
                    assertThat(Files.readString(log)).as(log.toString()).doesNotContain(SECRET);
                }
            }
            // the jar ran from usrlib/, where standalone-job.sh has it
            Path jar = LocalCluster.clusterJar();
            assertThat(
                            Files.mismatch(
                                    jar, cluster.home.resolve("usrlib").resolve(jar.getFileName())))
                    .isEqualTo(-1L);
            assertThat(cluster.log("jobmanager"))
                    .contains("Starting StandaloneApplicationClusterEntryPoint");
        } finally {
            stopAndSeeNoProcess(cluster);
        }
    }

    @Test
    void aBadFlowIsAFailedJobWithItsMessageAndTheJobManagerLivesOn() throws Exception {
        Path flow = dir.resolve("bad.sql");
        // the message quotes the bad column, whose name here is a secret's value
        Files.writeString(
                flow,
                Scd2Workload.flow(kafka.bootstrapServers(), "cdc_bad", "hist_bad", true)
                        .replace("KEYS (id)", "KEYS (${env:KEY_COLUMN})"));
        LocalCluster cluster =
                new LocalCluster(
                        dir.resolve("cluster"), OPERATOR_LIKE, Map.of("KEY_COLUMN", SECRET_COLUMN));
        try {
            // start waits for the job and fails with the flow's message, the line of KEYS's column
            assertThatThrownBy(
                            () ->
                                    cluster.start(
                                            "--ha",
                                            "--zookeeper-port",
                                            "" + LocalCluster.freePort(),
                                            "--application",
                                            LocalCluster.clusterJar().toString(),
                                            "run",
                                            "--flow",
                                            flow.toString()))
                    .hasMessageContaining("local-cluster start failed (1)")
                    .hasMessageContaining("the application's job is FAILED")
                    .hasMessageContaining(BAD_LINE + "KEYS: unknown column ${env:KEY_COLUMN}")
                    .hasMessageNotContaining(SECRET_COLUMN);
            String job = cluster.onlyJobId(Duration.ofMinutes(2));
            cluster.awaitJobState(job, "FAILED", Duration.ofMinutes(1));
            assertThat(cluster.get("/jobs/" + job + "/exceptions"))
                    .contains(
                            "KEYS: unknown column ${env:KEY_COLUMN}; the source's columns are [id,"
                                    + " name,")
                    .doesNotContain(SECRET_COLUMN);
            Thread.sleep(2000);
            long jobManager =
                    Long.parseLong(
                            Files.readString(cluster.home.resolve("jobmanager.pid")).strip());
            assertThat(LocalCluster.alive(jobManager)).as(cluster.log("jobmanager")).isTrue();
            assertThat(cluster.log("jobmanager")).doesNotContain("Fatal error occurred");
            try (var logs = Files.list(cluster.home.resolve("log"))) {
                for (Path log : logs.toList()) {
                    assertThat(Files.readString(log))
                            .as(log.toString())
                            .doesNotContain(SECRET_COLUMN);
                }
            }
        } finally {
            stopAndSeeNoProcess(cluster);
        }
    }

    /**
     * A bad flow in a cluster as {@code start --application} makes it by default, without HA: the
     * JobManager ends with a fatal error before a job exists, so {@code start} reads the flow's
     * message from the JobManager's output and exits 1 (it said "started" and 0 before).
     */
    @Test
    void startReportsABadFlowWhoseJobManagerEnds() throws Exception {
        Path flow = dir.resolve("bad.sql");
        Files.writeString(
                flow,
                Scd2Workload.flow(kafka.bootstrapServers(), "cdc_bad", "hist_bad", true)
                        .replace("KEYS (id)", "KEYS (nope)"));
        LocalCluster cluster = new LocalCluster(dir.resolve("cluster"));
        try {
            assertThatThrownBy(
                            () ->
                                    cluster.start(
                                            "--application",
                                            LocalCluster.clusterJar().toString(),
                                            "run",
                                            "--flow",
                                            flow.toString()))
                    .hasMessageContaining("local-cluster start failed (1)")
                    .hasMessageContaining(BAD_LINE + "KEYS: unknown column nope")
                    .hasMessageNotContaining("the application's job is RUNNING");
        } finally {
            List<Long> pids = cluster.pids();
            cluster.stop();
            assertThat(pids).noneMatch(LocalCluster::alive);
        }
    }

    private static void stopAndSeeNoProcess(LocalCluster cluster) throws Exception {
        List<Long> pids = cluster.pids();
        LocalCluster.Result r = cluster.stop();
        assertThat(r.code()).as(r.output()).isZero();
        assertThat(pids).hasSize(3).noneMatch(LocalCluster::alive);
    }
}
