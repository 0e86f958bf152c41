package dev.autocdc.cluster;

import static dev.autocdc.cluster.K8sManifests.K8S;
import static dev.autocdc.cluster.K8sManifests.ROOT;
import static dev.autocdc.cluster.K8sManifests.flinkDeployments;
import static dev.autocdc.cluster.K8sManifests.mainContainer;
import static dev.autocdc.cluster.K8sManifests.read;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * What {@code kubectl apply -f k8s/} and {@code docker build -f k8s/Dockerfile .} take from the
 * repository, and how Prometheus finds the pods: no Secret among the manifests (an example Secret
 * would overwrite the real one), a build context of the cluster jar alone, the PodMonitor and the
 * scrape annotations of both clusters.
 */
class KubernetesFilesTest {

    @Test
    void kubectlApplyOfK8sTakesNoSecret() throws Exception {
        List<String> kinds = new ArrayList<>();
        for (Path file : K8sManifests.manifests()) {
            kinds.add(read(file).path("kind").asString() + " " + K8S.relativize(file));
        }
        // also with -R, which reads subdirectories
        assertThat(kinds)
                .containsExactlyInAnyOrder(
                        "ConfigMap autocdc-flow.yaml",
                        "FlinkDeployment autocdc-deployment.yaml",
                        "PodMonitor monitoring/autocdc-podmonitor.yaml",
                        "FlinkDeployment session/session-cluster.yaml",
                        "FlinkSessionJob session/autocdc-session-job.yaml");
        // the example Secrets are there, under a name kubectl does not read
        assertThat(K8sManifests.secrets()).containsOnlyKeys("autocdc-kafka", "autocdc-s3");
        try (Stream<Path> examples = Files.list(K8S.resolve("examples"))) {
            assertThat(examples)
                    .allMatch(f -> f.toString().endsWith(".example"))
                    .noneMatch(K8sManifests::appliedByKubectl);
        }
    }

    @Test
    void theBuildContextHoldsTheClusterJarAlone() throws Exception {
        List<String> rules =
                Files.readAllLines(ROOT.resolve(".dockerignore")).stream()
                        .map(String::strip)
                        .filter(l -> !l.isEmpty() && !l.startsWith("#"))
                        .toList();
        List<String> sent = new ArrayList<>();
        try (Stream<Path> files = Files.walk(ROOT)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                String relative = ROOT.relativize(f).toString();
                if (inContext(rules, relative)) {
                    sent.add(relative);
                }
            }
        }
        String jar = ROOT.relativize(LocalCluster.clusterJar().normalize()).toString();
        assertThat(sent)
                .contains(jar)
                .allMatch(
                        p ->
                                p.matches("job/target/autocdc-job-.*-cluster\\.jar")
                                        || p.matches("job/target/image-lib/[^/]+\\.jar"));
        // the rules exclude: without them, the sources and every target/ go too
        assertThat(inContext(List.of(), "README.md")).isTrue();
        assertThat(inContext(rules, "README.md")).isFalse();
        assertThat(inContext(rules, "job/target/classes/x.class")).isFalse();
        // the Dockerfile copies that jar and the jars for lib/, and every one is sent
        String dockerfile = Files.readString(K8S.resolve("Dockerfile"));
        JsonNode deployment = read(K8S.resolve("autocdc-deployment.yaml"));
        Map<String, String> image = new OperatorStandalone(deployment, dockerfile).imageFiles(ROOT);
        assertThat(image.values()).contains(jar).hasSizeGreaterThan(1);
        assertThat(sent).containsAll(image.values());
    }

    /**
     * Whether Docker sends the file: the last rule that matches it, or one of its parent
     * directories, decides ({@code !} keeps); {@code *} stays within a directory, as in Go's
     * filepath.Match, which Docker uses, and Java's glob.
     */
    static boolean inContext(List<String> rules, String relative) {
        boolean sent = true;
        for (String rule : rules) {
            boolean keep = rule.startsWith("!");
            PathMatcher m =
                    FileSystems.getDefault().getPathMatcher("glob:" + rule.substring(keep ? 1 : 0));
            for (Path p = Path.of(relative); p != null; p = p.getParent()) {
                if (m.matches(p)) {
                    sent = keep;
                    break;
                }
            }
        }
        return sent;
    }

    @Test
    void thePodMonitorSelectsEveryFlinkPodOnItsMetricsPort() throws Exception {
        JsonNode monitor = read(K8S.resolve("monitoring/autocdc-podmonitor.yaml"));
        assertThat(monitor.path("apiVersion").asString()).isEqualTo("monitoring.coreos.com/v1");
        assertThat(monitor.path("kind").asString()).isEqualTo("PodMonitor");
        JsonNode selector = monitor.path("spec").path("selector");
        List<JsonNode> endpoints = new ArrayList<>();
        monitor.path("spec").path("podMetricsEndpoints").forEach(endpoints::add);
        assertThat(endpoints).hasSize(1);
        String port = endpoints.get(0).path("port").asString();
        for (JsonNode deployment : flinkDeployments()) {
            String name = deployment.path("metadata").path("name").asString();
            assertThat(deployment.path("spec").path("mode").asString()).isEqualTo("standalone");
            // the operator's labels of a standalone cluster's pods (StandaloneKubernetesUtils)
            for (String component : List.of("jobmanager", "taskmanager")) {
                Map<String, String> labels =
                        Map.of(
                                "type", "flink-standalone-kubernetes",
                                "app", name,
                                "component", component);
                assertThat(selects(selector, labels)).as(name + " " + component).isTrue();
            }
            assertThat(selects(selector, Map.of("type", "flink-standalone-kubernetes", "app", "x")))
                    .isFalse();
            assertThat(metricsPort(deployment, port)).as(name).isPositive();
        }
    }

    @Test
    void bothClustersAreAnnotatedForAPrometheusScrapeOfTheReportersPort() throws Exception {
        for (JsonNode deployment : flinkDeployments()) {
            String name = deployment.path("metadata").path("name").asString();
            JsonNode annotations =
                    deployment
                            .path("spec")
                            .path("podTemplate")
                            .path("metadata")
                            .path("annotations");
            assertThat(annotations.path("prometheus.io/scrape").asString())
                    .as(name)
                    .isEqualTo("true");
            String reporterPort =
                    deployment
                            .path("spec")
                            .path("flinkConfiguration")
                            .path("metrics.reporter.prom.port")
                            .asString();
            assertThat(annotations.path("prometheus.io/port").asString())
                    .as(name)
                    .isEqualTo(reporterPort);
            assertThat(metricsPort(deployment, "metrics"))
                    .isEqualTo(Integer.parseInt(reporterPort));
        }
    }

    /** The container port of that name, or -1. */
    private static int metricsPort(JsonNode deployment, String name) {
        for (JsonNode p : mainContainer(deployment).path("ports")) {
            if (p.path("name").asString().equals(name)) {
                return p.path("containerPort").asInt();
            }
        }
        return -1;
    }

    /** A Kubernetes label selector (matchLabels and In/NotIn/Exists) against a pod's labels. */
    private static boolean selects(JsonNode selector, Map<String, String> labels) {
        for (String key : selector.path("matchLabels").propertyNames()) {
            if (!selector.path("matchLabels").path(key).asString().equals(labels.get(key))) {
                return false;
            }
        }
        for (JsonNode e : selector.path("matchExpressions")) {
            String value = labels.get(e.path("key").asString());
            List<String> values = K8sManifests.strings(e.path("values"));
            boolean ok =
                    switch (e.path("operator").asString()) {
                        case "In" -> values.contains(value);
                        case "NotIn" -> !values.contains(value);
                        case "Exists" -> value != null;
                        default -> throw new AssertionError("operator " + e);
                    };
            if (!ok) {
                return false;
            }
        }
        return true;
    }
}
