package dev.autocdc.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Reading the manifests in {@code k8s/}: the files {@code kubectl apply -f} takes, a resource's
 * main container, a ConfigMap's data, the variables a container gets, and the operator's CRD
 * schemas made strict. Shared by {@link KubernetesManifestsTest} and {@link
 * KubernetesApplicationTest}.
 */
final class K8sManifests {
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    static final Path K8S = ROOT.resolve("k8s");
    static final YAMLMapper YAML = new YAMLMapper();

    private K8sManifests() {}

    /** Every file under {@code k8s/} that {@code kubectl apply -f k8s/ -R} would read. */
    static List<Path> manifests() throws IOException {
        try (Stream<Path> files = Files.walk(K8S)) {
            return files.filter(K8sManifests::appliedByKubectl).sorted().toList();
        }
    }

    /** kubectl reads the files of a directory whose names end in .json, .yaml or .yml. */
    static boolean appliedByKubectl(Path file) {
        String name = file.getFileName().toString();
        return Files.isRegularFile(file)
                && (name.endsWith(".yaml") || name.endsWith(".yml") || name.endsWith(".json"));
    }

    /**
     * The Secrets {@code k8s/} describes, by name: those kubectl would apply and the examples
     * ({@code k8s/examples/*.example}), which it does not.
     */
    static Map<String, JsonNode> secrets() throws IOException {
        List<Path> files = new ArrayList<>(manifests());
        try (Stream<Path> examples = Files.list(K8S.resolve("examples"))) {
            examples.filter(f -> f.toString().endsWith(".example")).forEach(files::add);
        }
        Map<String, JsonNode> secrets = new HashMap<>();
        for (Path file : files) {
            JsonNode doc = read(file);
            if (doc.path("kind").asString().equals("Secret")) {
                secrets.put(doc.path("metadata").path("name").asString(), doc);
            }
        }
        return secrets;
    }

    /** The FlinkDeployments of {@code k8s/} (the application's and the session cluster). */
    static List<JsonNode> flinkDeployments() throws IOException {
        List<JsonNode> out = new ArrayList<>();
        for (Path file : manifests()) {
            JsonNode doc = read(file);
            if (doc.path("kind").asString().equals("FlinkDeployment")) {
                out.add(doc);
            }
        }
        return out;
    }

    static JsonNode read(Path file) {
        try {
            return YAML.readTree(Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static JsonNode mainContainer(JsonNode deployment) {
        for (JsonNode c :
                deployment.path("spec").path("podTemplate").path("spec").path("containers")) {
            if (c.path("name").asString().equals("flink-main-container")) {
                return c;
            }
        }
        throw new AssertionError("no flink-main-container in the pod template");
    }

    /** The pod template's volume of that name. */
    static JsonNode volume(JsonNode deployment, String name) {
        for (JsonNode v :
                deployment.path("spec").path("podTemplate").path("spec").path("volumes")) {
            if (v.path("name").asString().equals(name)) {
                return v;
            }
        }
        throw new AssertionError("no volume " + name + " in the pod template");
    }

    /** The main container's volume mounts: mount path to volume name. */
    static Map<String, String> mounts(JsonNode deployment) {
        Map<String, String> mounts = new HashMap<>();
        for (JsonNode m : mainContainer(deployment).path("volumeMounts")) {
            mounts.put(m.path("mountPath").asString(), m.path("name").asString());
        }
        return mounts;
    }

    static String configMapData(String name, String key) throws IOException {
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

    /** The container's variables: literal values, and for Secret references a stand-in value. */
    static Map<String, String> environment(JsonNode container) {
        Map<String, String> env = new HashMap<>();
        for (JsonNode e : container.path("env")) {
            String name = e.path("name").asString();
            env.put(name, e.has("value") ? e.path("value").asString() : "from-secret-" + name);
        }
        return env;
    }

    static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        for (JsonNode n : array) {
            out.add(n.asString());
        }
        return out;
    }

    /** The kind's CRD schema (v1beta1), made strict: no field that the schema does not name. */
    static Schema crd(String kind) throws IOException {
        String file =
                kind.equals("FlinkDeployment")
                        ? "flinkdeployments.flink.apache.org-v1.yml"
                        : "flinksessionjobs.flink.apache.org-v1.yml";
        JsonNode definition;
        try (InputStream in = K8sManifests.class.getResourceAsStream("/k8s-crds/" + file)) {
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
