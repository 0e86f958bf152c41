package dev.autocdc.cluster;

import static dev.autocdc.cluster.K8sManifests.K8S;
import static dev.autocdc.cluster.K8sManifests.ROOT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.autocdc.embedded.kafka.EmbeddedKafka;
import dev.autocdc.embedded.kafka.FreePorts;
import dev.autocdc.job.cli.AutoCdcCli;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.flink.client.program.DefaultPackagedProgramRetriever;
import org.apache.flink.client.program.PackagedProgram;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code k8s/autocdc-deployment.yaml} started as the Flink Kubernetes Operator starts it in {@code
 * mode: standalone}, with the image {@code k8s/Dockerfile} describes, on a cluster of processes
 * here ({@code deploy/local-cluster start --application-from-config}). What the operator does is
 * mirrored by {@link OperatorStandalone}, which names the operator's source files it follows
 * (FlinkConfigBuilder, UserLibMountDecorator, CmdStandaloneJobManagerDecorator of release 1.15.0):
 * its jars are not on Maven Central, so the operator itself does not run here.
 *
 * <p>The cluster's directory plays the pod's {@code /opt/flink}: the Dockerfile's {@code COPY}
 * destinations land there unless a mount hides them; {@code usrlib/} is the empty directory the
 * operator mounts; the JobManager runs Flink's {@code StandaloneApplicationClusterEntryPoint} with
 * the operator's arguments ({@code --job-classname}, {@code --host}, the job's {@code args}) and
 * the operator's configuration: {@code pipeline.classpaths} from {@code jarURI}, the parallelism,
 * the memory of the two resources, and every key of the manifest's {@code flinkConfiguration}
 * except these, replaced by local equivalents because they need Kubernetes or S3:
 *
 * <ul>
 *   <li>{@code high-availability.type: kubernetes} and {@code high-availability.storageDir}
 *       (s3://): ZooKeeper high availability ({@code --ha}) with its storage in the cluster's
 *       directory;
 *   <li>{@code execution.checkpointing.dir} and {@code .savepoint-dir} (s3://): {@code file://}
 *       directories of the cluster;
 *   <li>{@code metrics.reporter.prom.port}: a pod has its own address, the processes here share
 *       one, so two free ports;
 *   <li>{@code taskmanager.numberOfTaskSlots}: passed as {@code --slots}, with the operator's
 *       number of TaskManagers;
 *   <li>paths in the pod ({@code /opt/flink/...}: the local volume for RocksDB and {@code
 *       io.tmp.dirs}, the flow's path): the same paths under the cluster's directory.
 * </ul>
 *
 * The flow is the ConfigMap's ({@code k8s/autocdc-flow.yaml}) with its Kafka security options
 * removed ({@code security.protocol} SASL_SSL, the SCRAM login, the truststore): the in-JVM broker
 * speaks PLAINTEXT. {@code KAFKA_BOOTSTRAP_SERVERS} names that broker; the Secret's variables get
 * stand-in values.
 */
class KubernetesApplicationTest {
    private static final Set<String> REPLACED =
            Set.of(
                    "high-availability.type",
                    "high-availability.storageDir",
                    "execution.checkpointing.dir",
                    "execution.checkpointing.savepoint-dir",
                    "metrics.reporter.prom.port",
                    "taskmanager.numberOfTaskSlots");

    @TempDir Path dir;

    @Test
    void theOperatorsStandaloneApplicationReachesRunning() throws Exception {
        long started = System.nanoTime();
        OperatorStandalone operator = current();
        Path home = dir.resolve("pod");
        layOutPod(operator, home);
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            List<String> events = events();
            Topics.produce(kafka, "employees_cdf", events, 1);
            writeFlow(operator, home);
            Map<String, String> env =
                    K8sManifests.environment(K8sManifests.mainContainer(operator.deployment));
            env.put("KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
            LocalCluster cluster = new LocalCluster(home, localConfiguration(operator, home), env);
            List<String> start =
                    new ArrayList<>(
                            List.of(
                                    "--ha",
                                    "--zookeeper-port",
                                    "" + LocalCluster.freePort(),
                                    "--taskmanagers",
                                    "" + operator.taskManagers(),
                                    "--slots",
                                    operator.configuration().get("taskmanager.numberOfTaskSlots"),
                                    "--application-from-config"));
            for (String a : operator.entryPointArguments("localhost")) {
                start.add(OperatorStandalone.rebased(home, a));
            }
            try {
                cluster.start(start.toArray(String[]::new));
                String job = cluster.onlyJobId(Duration.ofMinutes(1));
                awaitRunning(cluster, job);
                assertThat(cluster.awaitRead(job, "AUTO CDC apply_cdc", events.size()))
                        .as(cluster.progress(job))
                        .isEqualTo(events.size());
                assertThat(cluster.restarts(job)).as(cluster.log("jobmanager")).isZero();
                // the operator's empty usrlib stayed empty: the jar came from pipeline.classpaths
                try (Stream<Path> usrlib = Files.list(home.resolve("usrlib"))) {
                    assertThat(usrlib).isEmpty();
                }
                assertThat(cluster.log("jobmanager"))
                        .contains("Starting StandaloneApplicationClusterEntryPoint");
                // RocksDB's files and the temporary files went to the pod's local volume
                for (String key : List.of("state.backend.rocksdb.localdir", "io.tmp.dirs")) {
                    String path = operator.configuration().get(key);
                    assertThat(OperatorStandalone.inPod(home, path)).as(key).isDirectory();
                }
            } finally {
                cluster.keepLogs(Path.of("target", "k8s-application-logs"));
                cluster.stop();
            }
        }
        System.out.printf(
                "KubernetesApplicationTest: RUNNING and reading in %.1f s%n",
                (System.nanoTime() - started) / 1e9);
    }

    /**
     * The layout the issue found broken, in-JVM through the same call the entry point makes
     * (DefaultPackagedProgramRetriever): the jar in {@code /opt/flink/usrlib} and {@code jarURI}
     * pointing at it. Under the operator's empty usrlib the jar is gone; without that mount it is
     * found twice. Today's layout gives the CLI's main class.
     */
    @Test
    void theJarInUsrlibFailsAsOnTheOperatorAndTheArtifactsDirectoryDoesNot() throws Exception {
        OperatorStandalone today = current();
        ObjectNode old = (ObjectNode) today.deployment.deepCopy();
        ObjectNode oldJob = (ObjectNode) old.path("spec").path("job");
        oldJob.put("jarURI", "local:///opt/flink/usrlib/autocdc.jar");
        oldJob.remove("entryClass");
        String oldDockerfile =
                "COPY --chown=flink:flink "
                        + ROOT.relativize(LocalCluster.clusterJar().normalize())
                        + " /opt/flink/usrlib/autocdc.jar\n";
        OperatorStandalone before = new OperatorStandalone(old, oldDockerfile);

        assertThatThrownBy(() -> program(before, dir.resolve("old"), true))
                .hasStackTraceContaining("NoSuchFileException")
                .hasStackTraceContaining("usrlib/autocdc.jar");
        assertThatThrownBy(() -> program(before, dir.resolve("old-unmounted"), false))
                .hasStackTraceContaining("Multiple JAR archives with entry classes found");
        try (PackagedProgram program = program(today, dir.resolve("today"), true)) {
            assertThat(program.getMainClassName()).isEqualTo(AutoCdcCli.class.getName());
        }
    }

    // ---------------------------------------------------------------------------------------------

    private static OperatorStandalone current() throws Exception {
        JsonNode deployment = K8sManifests.read(K8S.resolve("autocdc-deployment.yaml"));
        return new OperatorStandalone(deployment, Files.readString(K8S.resolve("Dockerfile")));
    }

    /** The image's files and the pod's volumes, under {@code home}. */
    private static void layOutPod(OperatorStandalone operator, Path home) throws Exception {
        layOutImage(operator, home, true);
        for (Map.Entry<String, String> m : K8sManifests.mounts(operator.deployment).entrySet()) {
            JsonNode volume = K8sManifests.volume(operator.deployment, m.getValue());
            Path at = OperatorStandalone.inPod(home, m.getKey());
            Files.createDirectories(at);
            assertThat(volume.has("configMap") || volume.has("secret") || volume.has("emptyDir"))
                    .as("a volume the test can lay out: " + volume)
                    .isTrue();
        }
    }

    /**
     * The image: each of the Dockerfile's files at its place, unless a mount (the operator's usrlib
     * among them, when {@code mounted}) hides it.
     */
    private static void layOutImage(OperatorStandalone operator, Path home, boolean mounted)
            throws Exception {
        Files.createDirectories(home.resolve("usrlib"));
        for (Map.Entry<String, String> f : operator.imageFiles(ROOT).entrySet()) {
            if (mounted && operator.hiddenByMount(f.getKey())) {
                continue;
            }
            Path to = OperatorStandalone.inPod(home, f.getKey());
            Files.createDirectories(to.getParent());
            Files.copy(ROOT.resolve(f.getValue()), to);
        }
    }

    /** The ConfigMap's flow at the path its volume has, adapted to the in-JVM broker. */
    private static void writeFlow(OperatorStandalone operator, Path home) throws Exception {
        JsonNode flows = K8sManifests.volume(operator.deployment, "flows");
        String configMap = flows.path("configMap").path("name").asString();
        List<String> args =
                K8sManifests.strings(operator.deployment.path("spec").path("job").path("args"));
        String path = args.get(args.indexOf("--flow") + 1);
        String key = path.substring(path.lastIndexOf('/') + 1);
        String flow =
                K8sManifests.configMapData(configMap, key)
                        .replaceAll(
                                "'properties\\.(?:security|sasl|ssl)\\.[\\w.]+'\\s*=\\s*'(?:[^']|'')*'"
                                    + "\\s*,\\s*",
                                "");
        assertThat(flow).doesNotContain("SASL").doesNotContain("truststore");
        Files.writeString(OperatorStandalone.inPod(home, path), flow);
    }

    /** The operator's configuration, with the replacements the class comment lists. */
    private static String localConfiguration(OperatorStandalone operator, Path home)
            throws Exception {
        Map<String, String> conf = new LinkedHashMap<>(operator.configuration());
        assertThat(conf).containsKeys(REPLACED.toArray(String[]::new));
        conf.keySet().removeAll(REPLACED);
        int[] prom = FreePorts.of(2);
        conf.put("metrics.reporter.prom.port", prom[0] + "," + prom[1]);
        StringBuilder lines = new StringBuilder();
        for (Map.Entry<String, String> e : conf.entrySet()) {
            String value = OperatorStandalone.rebased(home, e.getValue());
            assertThat(value)
                    .as(e.getKey() + " needs a local equivalent here")
                    .doesNotStartWith("s3://")
                    .doesNotStartWith("gs://");
            lines.append(e.getKey()).append(": '").append(value.replace("'", "''")).append("'\n");
        }
        return lines.toString();
    }

    /** The program the entry point would build, as in StandaloneApplicationClusterEntryPoint. */
    private static PackagedProgram program(OperatorStandalone operator, Path home, boolean mounted)
            throws Exception {
        layOutImage(operator, home, mounted);
        Map<String, String> conf = new LinkedHashMap<>();
        operator.configuration()
                .forEach((k, v) -> conf.put(k, OperatorStandalone.rebased(home, v)));
        List<String> args = operator.entryPointArguments("localhost");
        String jobClass = null;
        if (args.indexOf("--job-classname") == 0) {
            jobClass = args.get(1);
        }
        File usrlib = home.resolve("usrlib").toFile();
        return DefaultPackagedProgramRetriever.create(
                        usrlib, null, jobClass, new String[0], Configuration.fromMap(conf))
                .getPackagedProgram();
    }

    /** Waits until the job runs; fails at once, with its exceptions, when it ends instead. */
    private static void awaitRunning(LocalCluster cluster, String job) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        String state = null;
        while (!"RUNNING".equals(state) && System.nanoTime() < deadline) {
            state = cluster.jobState(job);
            if (Set.of("FAILED", "CANCELED", "FINISHED").contains(state)) {
                throw new AssertionError(
                        "job " + state + ": " + cluster.get("/jobs/" + job + "/exceptions"));
            }
            Thread.sleep(300);
        }
        assertThat(state).isEqualTo("RUNNING");
    }

    /** A few change events of the ConfigMap's source table ({@code employees_cdf}). */
    private static List<String> events() {
        List<String> lines = new ArrayList<>();
        for (int id = 1; id <= 5; id++) {
            lines.add(
                    ("{\"employeeId\":%d,\"name\":\"e%d\",\"role\":\"engineer\",\"operation\":"
                                    + "\"UPSERT\",\"effectiveDate\":\"2025-01-0%d\","
                                    + "\"recordedAt\":\"2025-01-0%d 09:00:00\"}")
                            .formatted(id, id, id, id));
        }
        return lines;
    }
}
