package dev.autocdc.cluster;

import static dev.autocdc.cluster.K8sManifests.K8S;
import static dev.autocdc.cluster.K8sManifests.ROOT;
import static dev.autocdc.cluster.K8sManifests.configMapData;
import static dev.autocdc.cluster.K8sManifests.crd;
import static dev.autocdc.cluster.K8sManifests.environment;
import static dev.autocdc.cluster.K8sManifests.mainContainer;
import static dev.autocdc.cluster.K8sManifests.manifests;
import static dev.autocdc.cluster.K8sManifests.read;
import static dev.autocdc.cluster.K8sManifests.strings;
import static org.assertj.core.api.Assertions.assertThat;

import com.networknt.schema.Error;
import dev.autocdc.job.cli.AutoCdcCli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The manifests in {@code k8s/}, checked offline (no Docker, no Kubernetes here): each Flink
 * resource against the operator's CRD schema, as strictly as {@code kubectl apply
 * --validate=strict} (an unknown field is an error); each {@code flinkConfiguration} key against
 * Flink's own options; the job's arguments through the CLI, whose {@code validate} must pass on the
 * ConfigMap's flow with the variables the pods get; the names the manifests share; the Dockerfile
 * against the built jar and the pom's Flink version.
 */
class KubernetesManifestsTest {
    @TempDir Path dir;

    @Test
    void everyFlinkResourceValidatesAgainstTheOperatorsCrd() throws Exception {
        List<String> checked = new ArrayList<>();
        for (Path file : manifests()) {
            JsonNode doc = read(file);
            String kind = doc.path("kind").asString();
            if (!kind.startsWith("Flink")) {
                continue;
            }
            assertThat(doc.path("apiVersion").asString())
                    .as(file.toString())
                    .isEqualTo("flink.apache.org/v1beta1");
            List<Error> errors = crd(kind).validate(doc);
            assertThat(errors).as(file + " against the " + kind + " CRD").isEmpty();
            checked.add(kind + " " + K8S.relativize(file));
        }
        assertThat(checked)
                .containsExactlyInAnyOrder(
                        "FlinkDeployment autocdc-deployment.yaml",
                        "FlinkDeployment session/session-cluster.yaml",
                        "FlinkSessionJob session/autocdc-session-job.yaml");
    }

    @Test
    void theValidationCatchesAMistypedFieldAndAWrongValue() throws Exception {
        ObjectNode doc = (ObjectNode) read(K8S.resolve("autocdc-deployment.yaml"));
        ObjectNode job = (ObjectNode) doc.path("spec").path("job");
        job.set("upgradMode", job.remove("upgradeMode"));
        ((ObjectNode) doc.path("spec")).put("mode", "standalon");
        List<String> errors =
                crd("FlinkDeployment").validate(doc).stream().map(Error::toString).toList();
        assertThat(errors)
                .anyMatch(e -> e.contains("upgradMode"))
                .anyMatch(e -> e.contains("mode"));
    }

    @Test
    void everyFlinkConfigurationKeyIsAFlinkOptionWithAValueThatParses() throws Exception {
        FlinkOptionKeys known = FlinkOptionKeys.onClasspath();
        assertThat(known.size()).as("Flink options found on the classpath").isGreaterThan(500);
        List<String> problems = new ArrayList<>();
        int keys = 0;
        for (Path file : manifests()) {
            JsonNode conf = read(file).path("spec").path("flinkConfiguration");
            for (String key : conf.propertyNames()) {
                keys++;
                assertThat(conf.get(key).isString())
                        .as(file + ": " + key + " is written as a string, as the operator reads it")
                        .isTrue();
                String problem = known.problem(key, conf.get(key).asString());
                if (problem != null) {
                    problems.add(K8S.relativize(file) + ": " + problem);
                }
            }
        }
        assertThat(keys).isGreaterThan(20);
        assertThat(problems).isEmpty();
        // the check can fail: a typo in a key, a value of the wrong type, a reporter setting
        assertThat(known.problem("state.backend.typ", "rocksdb")).contains("no Flink option");
        assertThat(known.problem("execution.checkpointing.interval", "often"))
                .contains("does not parse");
        assertThat(known.problem("metrics.reporter.prom.factory.clas", "x"))
                .contains("no Flink option");
        assertThat(known.problem("metrics.reporter.prom.factory.class", "org.example.Nope"))
                .contains("no class");
        assertThat(known.problem("metrics.reporter.prom.interval", "60 s")).isNull();
    }

    @Test
    void theS3PluginIsTheImagesFlinkVersion() throws Exception {
        String pom = Files.readString(ROOT.resolve("pom.xml"));
        Matcher version = Pattern.compile("<flink.version>([^<]+)</flink.version>").matcher(pom);
        assertThat(version.find()).isTrue();
        int plugins = 0;
        for (String file : List.of("autocdc-deployment.yaml", "session/session-cluster.yaml")) {
            for (JsonNode env : mainContainer(read(K8S.resolve(file))).path("env")) {
                if (env.path("name").asString().equals("ENABLE_BUILT_IN_PLUGINS")) {
                    plugins++;
                    assertThat(env.path("value").asString())
                            .isEqualTo("flink-s3-fs-presto-" + version.group(1) + ".jar");
                }
            }
        }
        assertThat(plugins).isEqualTo(2);
    }

    @Test
    void theDeploymentsArgumentsValidateTheConfigMapsFlow() throws Exception {
        JsonNode deployment = read(K8S.resolve("autocdc-deployment.yaml"));
        JsonNode container = mainContainer(deployment);
        List<String> args = strings(deployment.path("spec").path("job").path("args"));
        int flowAt = args.indexOf("--flow") + 1;
        // the flow's path is inside the mount of a ConfigMap, which has the file as a key
        Map.Entry<String, String> mount =
                K8sManifests.mounts(deployment).entrySet().stream()
                        .filter(m -> args.get(flowAt).startsWith(m.getKey() + "/"))
                        .findFirst()
                        .orElseThrow(
                                () -> new AssertionError("no mount holds " + args.get(flowAt)));
        String key = args.get(flowAt).substring(mount.getKey().length() + 1);
        String configMapName =
                K8sManifests.volume(deployment, mount.getValue())
                        .path("configMap")
                        .path("name")
                        .asString();
        String flow = configMapData(configMapName, key);
        List<String> errs = validate(args, flowAt, flow, environment(container));
        assertThat(errs).isEmpty();
    }

    @Test
    void theSessionJobsArgumentsValidateTheSameFlowFetchedByUri() throws Exception {
        JsonNode job = read(K8S.resolve("session/autocdc-session-job.yaml"));
        JsonNode cluster = read(K8S.resolve("session/session-cluster.yaml"));
        assertThat(job.path("spec").path("deploymentName").asString())
                .isEqualTo(cluster.path("metadata").path("name").asString());
        List<String> args = strings(job.path("spec").path("job").path("args"));
        int flowAt = args.indexOf("--flow") + 1;
        assertThat(args.get(flowAt)).startsWith("s3://").endsWith("/employees.sql");
        // the job's main runs in the session cluster's JobManager: its environment counts
        List<String> errs =
                validate(
                        args,
                        flowAt,
                        configMapData("autocdc-flows", "employees.sql"),
                        environment(mainContainer(cluster)));
        assertThat(errs).isEmpty();
    }

    @Test
    void theSecretsHoldEveryKeyThePodsRead() throws Exception {
        Map<String, JsonNode> secrets = K8sManifests.secrets();
        int refs = 0;
        for (JsonNode deployment : K8sManifests.flinkDeployments()) {
            String name = deployment.path("metadata").path("name").asString();
            for (JsonNode env : mainContainer(deployment).path("env")) {
                JsonNode ref = env.path("valueFrom").path("secretKeyRef");
                if (!ref.isMissingNode()) {
                    refs++;
                    JsonNode secret = secrets.get(ref.path("name").asString());
                    assertThat(secret).as(name + ": Secret " + ref.path("name")).isNotNull();
                    assertThat(secret.path("stringData").has(ref.path("key").asString()))
                            .as(name + ": " + env.path("name").asString())
                            .isTrue();
                }
            }
        }
        assertThat(refs).isGreaterThanOrEqualTo(8);
    }

    @Test
    void theImageHasTheBuiltJarWhereJarUriPointsAndTheOperatorMountsNothing() throws Exception {
        String dockerfile = Files.readString(K8S.resolve("Dockerfile"));
        Matcher from = Pattern.compile("(?m)^FROM flink:([0-9.]+)-java17$").matcher(dockerfile);
        assertThat(from.find()).as(dockerfile).isTrue();
        String pom = Files.readString(ROOT.resolve("pom.xml"));
        assertThat(pom).contains("<flink.version>" + from.group(1) + "</flink.version>");
        JsonNode deployment = read(K8S.resolve("autocdc-deployment.yaml"));
        String flinkVersion = deployment.path("spec").path("flinkVersion").asString();
        assertThat(from.group(1)).startsWith(flinkVersion.substring(1).replace('_', '.') + ".");
        OperatorStandalone operator = new OperatorStandalone(deployment, dockerfile);
        Map<String, String> files = operator.imageFiles(ROOT);
        // the cluster jar, and jars for Flink's lib/ (ImageClasspathTest)
        assertThat(files.keySet().stream().filter(f -> !f.startsWith("/opt/flink/lib/")))
                .as(dockerfile)
                .hasSize(1);
        Map.Entry<String, String> copy =
                files.entrySet().stream()
                        .filter(f -> !f.getKey().startsWith("/opt/flink/lib/"))
                        .findFirst()
                        .orElseThrow();
        // one file by its exact name, the one the build makes: a glob fails the build once
        // job/target holds the jars of two versions
        assertThat(copy.getValue())
                .isEqualTo(ROOT.relativize(LocalCluster.clusterJar().normalize()).toString());
        JsonNode job = deployment.path("spec").path("job");
        assertThat(job.path("jarURI").asString()).isEqualTo("local://" + copy.getKey());
        // in mode: standalone the operator mounts an empty directory over /opt/flink/usrlib: a jar
        // there would be hidden (KubernetesApplicationTest starts this layout)
        assertThat(operator.mountsEmptyUsrlib()).isTrue();
        assertThat(operator.hiddenByMount(copy.getKey())).as(copy.getKey()).isFalse();
        try (JarFile jar = new JarFile(LocalCluster.clusterJar().toFile())) {
            assertThat(job.path("entryClass").asString())
                    .isEqualTo(jar.getManifest().getMainAttributes().getValue("Main-Class"));
        }
    }

    // ---------------------------------------------------------------------------------------------

    /** Runs the CLI's validate with the manifest's arguments, the flow file copied locally. */
    private List<String> validate(
            List<String> args, int flowAt, String flow, Map<String, String> env) throws Exception {
        Path local = dir.resolve("flow.sql");
        Files.writeString(local, flow);
        List<String> validate = new ArrayList<>(args);
        assertThat(validate.get(0)).isEqualTo("run");
        validate.set(0, "validate");
        validate.set(flowAt, local.toString());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code =
                new AutoCdcCli(
                                new PrintStream(out, true, StandardCharsets.UTF_8),
                                new PrintStream(err, true, StandardCharsets.UTF_8),
                                false)
                        .withEnvironment(env)
                        .run(validate.toArray(String[]::new));
        List<String> problems = new ArrayList<>();
        if (code != 0) {
            problems.add("exit code " + code + ": " + err);
        }
        // validate printed the plan, without the secret's value
        if (!out.toString().contains("flow apply_cdc: AUTO CDC INTO employees_bitemporal")) {
            problems.add("no plan printed: " + out);
        }
        for (String value : env.values()) {
            if (value.startsWith("from-secret-")
                    && (out.toString().contains(value) || err.toString().contains(value))) {
                problems.add("a Secret's value was printed: " + value);
            }
        }
        return problems;
    }
}
