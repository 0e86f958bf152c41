package dev.autocdc.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.autocdc.job.cli.AutoCdcCli;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The manifests in {@code k8s/}, checked offline (no Docker, no Kubernetes here): each Flink
 * resource against the operator's CRD schema, as strictly as {@code kubectl apply
 * --validate=strict} (an unknown field is an error); each {@code flinkConfiguration} key against
 * Flink's own options; the job's arguments through the CLI, whose {@code validate} must pass on the
 * ConfigMap's flow with the variables the pods get; the names the manifests share; the Dockerfile
 * against the built jar and the pom's Flink version.
 */
class KubernetesManifestsTest {
    static final Path K8S = Path.of("..", "k8s");
    static final YAMLMapper YAML = new YAMLMapper();

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
        String pom = Files.readString(Path.of("..", "pom.xml"));
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
        // the flow's path is inside the ConfigMap's mount
        String mountPath = null;
        for (JsonNode m : container.path("volumeMounts")) {
            mountPath = m.path("mountPath").asString();
        }
        List<String> args = strings(deployment.path("spec").path("job").path("args"));
        int flowAt = args.indexOf("--flow") + 1;
        assertThat(args.get(flowAt)).startsWith(mountPath + "/");
        String key = args.get(flowAt).substring(mountPath.length() + 1);
        String configMapName =
                deployment
                        .path("spec")
                        .path("podTemplate")
                        .path("spec")
                        .path("volumes")
                        .get(0)
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
    void theSecretHoldsEveryKeyThePodsRead() throws Exception {
        JsonNode secret = read(K8S.resolve("autocdc-kafka-secret.yaml"));
        for (String file : List.of("autocdc-deployment.yaml", "session/session-cluster.yaml")) {
            for (JsonNode env : mainContainer(read(K8S.resolve(file))).path("env")) {
                JsonNode ref = env.path("valueFrom").path("secretKeyRef");
                if (!ref.isMissingNode()) {
                    assertThat(ref.path("name").asString())
                            .isEqualTo(secret.path("metadata").path("name").asString());
                    assertThat(secret.path("stringData").has(ref.path("key").asString()))
                            .as(file + ": " + env.path("name").asString())
                            .isTrue();
                }
            }
        }
    }

    @Test
    void theDockerfileCopiesTheBuiltJarWhereTheDeploymentLooksAndMatchesFlink() throws Exception {
        String dockerfile = Files.readString(K8S.resolve("Dockerfile"));
        Matcher from = Pattern.compile("(?m)^FROM flink:([0-9.]+)-java17$").matcher(dockerfile);
        assertThat(from.find()).as(dockerfile).isTrue();
        String pom = Files.readString(Path.of("..", "pom.xml"));
        assertThat(pom).contains("<flink.version>" + from.group(1) + "</flink.version>");
        String flinkVersion =
                read(K8S.resolve("autocdc-deployment.yaml"))
                        .path("spec")
                        .path("flinkVersion")
                        .asString();
        assertThat(from.group(1)).startsWith(flinkVersion.substring(1).replace('_', '.') + ".");
        Matcher copy =
                Pattern.compile("(?m)^COPY (?:--chown=\\S+ )?(\\S+) (\\S+)$").matcher(dockerfile);
        assertThat(copy.find()).as(dockerfile).isTrue();
        String glob = copy.group(1);
        Path built = LocalCluster.clusterJar();
        assertThat(
                        built.getFileSystem()
                                .getPathMatcher("glob:" + glob)
                                .matches(
                                        Path.of("..")
                                                .toAbsolutePath()
                                                .normalize()
                                                .relativize(built.normalize())))
                .as(glob + " matches " + built)
                .isTrue();
        String jarUri =
                read(K8S.resolve("autocdc-deployment.yaml"))
                        .path("spec")
                        .path("job")
                        .path("jarURI")
                        .asString();
        assertThat(jarUri).isEqualTo("local://" + copy.group(2));
        assertThat(copy.group(2)).startsWith("/opt/flink/usrlib/");
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

    /** The container's variables: literal values, and for Secret references a stand-in value. */
    private static Map<String, String> environment(JsonNode container) {
        Map<String, String> env = new HashMap<>();
        for (JsonNode e : container.path("env")) {
            String name = e.path("name").asString();
            env.put(name, e.has("value") ? e.path("value").asString() : "from-secret-" + name);
        }
        return env;
    }

    private static JsonNode mainContainer(JsonNode deployment) {
        for (JsonNode c :
                deployment.path("spec").path("podTemplate").path("spec").path("containers")) {
            if (c.path("name").asString().equals("flink-main-container")) {
                return c;
            }
        }
        throw new AssertionError("no flink-main-container in the pod template");
    }

    private static String configMapData(String name, String key) throws IOException {
        for (Path file : manifests()) {
            JsonNode doc = read(file);
            if (doc.path("kind").asString().equals("ConfigMap")
                    && doc.path("metadata").path("name").asString().equals(name)) {
                assertThat(doc.path("data").has(key)).as(file + " has key " + key).isTrue();
                return doc.path("data").path(key).asString();
            }
        }
        throw new AssertionError("no ConfigMap " + name + " in k8s/");
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        for (JsonNode n : array) {
            out.add(n.asString());
        }
        return out;
    }

    static List<Path> manifests() throws IOException {
        try (Stream<Path> files = Files.walk(K8S)) {
            return files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList();
        }
    }

    static JsonNode read(Path file) {
        try {
            return YAML.readTree(Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The kind's CRD schema (v1beta1), made strict: no field that the schema does not name. */
    static Schema crd(String kind) throws IOException {
        String file =
                kind.equals("FlinkDeployment")
                        ? "flinkdeployments.flink.apache.org-v1.yml"
                        : "flinksessionjobs.flink.apache.org-v1.yml";
        JsonNode definition;
        try (InputStream in =
                KubernetesManifestsTest.class.getResourceAsStream("/k8s-crds/" + file)) {
            definition = YAML.readTree(in);
        }
        JsonNode version = null;
        for (JsonNode v : definition.path("spec").path("versions")) {
            if (v.path("name").asString().equals("v1beta1")) {
                version = v;
            }
        }
        assertThat(version).as(file + " has version v1beta1").isNotNull();
        ObjectNode schema = (ObjectNode) version.path("schema").path("openAPIV3Schema");
        // the fields every Kubernetes object has, which a CRD's schema leaves to the API server
        ObjectNode properties = (ObjectNode) schema.path("properties");
        properties.putObject("apiVersion").put("type", "string");
        properties.putObject("kind").put("type", "string").putArray("enum").add(kind);
        ObjectNode metadata = properties.putObject("metadata");
        metadata.put("type", "object");
        ObjectNode meta = metadata.putObject("properties");
        meta.putObject("name").put("type", "string");
        meta.putObject("namespace").put("type", "string");
        for (String map : List.of("labels", "annotations")) {
            ObjectNode m = meta.putObject(map);
            m.put("type", "object");
            m.putObject("additionalProperties").put("type", "string");
        }
        metadata.putArray("required").add("name");
        strict(schema);
        return SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_4).getSchema(schema);
    }

    /**
     * Closes every object schema that lists its properties and does not preserve unknown fields, as
     * a Kubernetes API server in strict field validation does.
     */
    private static void strict(JsonNode node) {
        if (!(node instanceof ObjectNode schema)) {
            return;
        }
        JsonNode properties = schema.get("properties");
        if (properties != null) {
            for (JsonNode p : properties) {
                strict(p);
            }
            if (!schema.path("x-kubernetes-preserve-unknown-fields").asBoolean(false)
                    && !schema.has("additionalProperties")) {
                schema.put("additionalProperties", false);
            }
        }
        strict(schema.get("items"));
        strict(schema.get("additionalProperties"));
        for (String combinator : List.of("anyOf", "allOf", "oneOf")) {
            if (schema.get(combinator) instanceof ArrayNode alternatives) {
                for (JsonNode a : alternatives) {
                    strict(a);
                }
            }
        }
    }
}
