package dev.autocdc.cluster;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;

/**
 * What the Flink Kubernetes Operator makes of a {@code FlinkDeployment} with a job in {@code mode:
 * standalone}, written out for a test that starts the same entry point on this machine. The
 * operator's jars are not on Maven Central, so this mirrors, by hand, only the parts that decide
 * where the JobManager finds the job's jar and how it is started, as
 * apache/flink-kubernetes-operator release 1.15.0 has them:
 *
 * <ul>
 *   <li>{@code flink-kubernetes-operator/.../config/FlinkConfigBuilder.java}, {@code
 *       applyJobOrSessionSpec}: in standalone mode {@code jarURI} becomes {@code
 *       pipeline.classpaths} (a {@code local://} URI rewritten as {@code file://}); {@code
 *       job.parallelism} becomes {@code parallelism.default}; {@code
 *       execution.shutdown-on-application-finish} is false, and {@code
 *       execution.submit-failed-job-on-application-error} true unless set; {@code applyJobConfig}
 *       keeps checkpoints on cancellation unless set; the resources' memory becomes {@code
 *       jobmanager.memory.process.size} and {@code taskmanager.memory.process.size};
 *   <li>{@code flink-kubernetes-standalone/.../decorators/UserLibMountDecorator.java}: for an
 *       application cluster with {@code pipeline.classpaths}, when the main container mounts
 *       nothing at (or under) {@code /opt/flink/usrlib}, an {@code emptyDir} is mounted there,
 *       hiding what the image has in that directory;
 *   <li>{@code flink-kubernetes-standalone/.../decorators/CmdStandaloneJobManagerDecorator.java}:
 *       the JobManager's container runs {@code standalone-job} (the image's entry point, which
 *       starts {@code StandaloneApplicationClusterEntryPoint}) with {@code --job-classname} for
 *       {@code entryClass}, {@code --allowNonRestoredState}, {@code --fromSavepoint} for {@code
 *       initialSavepointPath}, {@code --host <pod IP>} when high availability is on, then the job's
 *       {@code args};
 *   <li>{@code FlinkUtils.getNumTaskManagers}: TaskManagers enough for the parallelism's slots.
 * </ul>
 *
 * Not mirrored: whatever needs a Kubernetes API (services, the HA ConfigMaps, the pods themselves),
 * savepoint upgrades, native mode.
 */
final class OperatorStandalone {
    static final String FLINK_HOME = "/opt/flink/";
    static final String USRLIB = "/opt/flink/usrlib";

    private static final Pattern ARG = Pattern.compile("(?m)^ARG (\\w+)=(\\S+)$");
    private static final Pattern COPY =
            Pattern.compile("(?m)^COPY (?:--chown=\\S+ )?(\\S+) (\\S+)$");

    final JsonNode deployment;
    private final String dockerfile;

    OperatorStandalone(JsonNode deployment, String dockerfile) {
        this.deployment = deployment;
        this.dockerfile = dockerfile;
    }

    private JsonNode job() {
        return deployment.path("spec").path("job");
    }

    /** The configuration the operator writes for the cluster's processes (what matters here). */
    Map<String, String> configuration() throws Exception {
        Map<String, String> conf = new LinkedHashMap<>();
        JsonNode spec = deployment.path("spec");
        for (String key : spec.path("flinkConfiguration").propertyNames()) {
            conf.put(key, spec.path("flinkConfiguration").path(key).asString());
        }
        conf.put("parallelism.default", job().path("parallelism").asString());
        conf.put("execution.shutdown-on-application-finish", "false");
        conf.putIfAbsent("execution.submit-failed-job-on-application-error", "true");
        conf.putIfAbsent(
                "execution.checkpointing.externalized-checkpoint-retention",
                "RETAIN_ON_CANCELLATION");
        conf.put(
                "jobmanager.memory.process.size",
                spec.path("jobManager").path("resource").path("memory").asString());
        conf.put(
                "taskmanager.memory.process.size",
                spec.path("taskManager").path("resource").path("memory").asString());
        if (job().has("jarURI")) {
            conf.put("pipeline.classpaths", standaloneJarUri(job().path("jarURI").asString()));
        }
        return conf;
    }

    /** FlinkConfigBuilder.getStandaloneJarURI: {@code local://} becomes {@code file://}. */
    static String standaloneJarUri(String jarUri) throws Exception {
        URI uri = new URI(jarUri);
        if (uri.getScheme().equals("local")) {
            uri =
                    new URI(
                            "file",
                            uri.getAuthority() == null ? "" : uri.getAuthority(),
                            uri.getPath(),
                            uri.getQuery(),
                            uri.getFragment());
        }
        return uri.toASCIIString();
    }

    boolean highAvailability() {
        String type =
                deployment
                        .path("spec")
                        .path("flinkConfiguration")
                        .path("high-availability.type")
                        .asString("none");
        return !type.equalsIgnoreCase("none");
    }

    /** The arguments after {@code standalone-job}, as CmdStandaloneJobManagerDecorator has them. */
    List<String> entryPointArguments(String podIp) {
        List<String> args = new ArrayList<>();
        if (job().has("entryClass")) {
            args.addAll(List.of("--job-classname", job().path("entryClass").asString()));
        }
        if (job().path("allowNonRestoredState").asBoolean(false)) {
            args.add("--allowNonRestoredState");
        }
        if (job().has("initialSavepointPath")) {
            args.addAll(List.of("--fromSavepoint", job().path("initialSavepointPath").asString()));
        }
        if (highAvailability()) {
            args.addAll(List.of("--host", podIp));
        }
        args.addAll(K8sManifests.strings(job().path("args")));
        return args;
    }

    /** UserLibMountDecorator: whether the JobManager gets an empty directory at usrlib. */
    boolean mountsEmptyUsrlib() {
        boolean own =
                K8sManifests.mounts(deployment).keySet().stream()
                        .anyMatch(m -> m.startsWith(USRLIB));
        return job().has("jarURI") && !own;
    }

    /** The JobManager's mount paths, the operator's empty usrlib among them when it adds it. */
    List<String> mountPaths() {
        List<String> paths = new ArrayList<>(K8sManifests.mounts(deployment).keySet());
        if (mountsEmptyUsrlib()) {
            paths.add(USRLIB);
        }
        return paths;
    }

    /** Whether a mount covers this path of the image, so that the pod does not see it. */
    boolean hiddenByMount(String imagePath) {
        return mountPaths().stream().anyMatch(m -> imagePath.startsWith(m + "/"));
    }

    /**
     * The files the Dockerfile adds to Flink's image: destination to source (relative to the build
     * context, {@code root}), its {@code ARG} defaults resolved; a directory's files each.
     */
    Map<String, String> imageFiles(Path root) throws IOException {
        Map<String, String> args = new HashMap<>();
        for (Matcher m = ARG.matcher(dockerfile); m.find(); ) {
            args.put(m.group(1), m.group(2));
        }
        Map<String, String> files = new LinkedHashMap<>();
        for (Matcher m = COPY.matcher(dockerfile); m.find(); ) {
            String source = m.group(1);
            for (Map.Entry<String, String> a : args.entrySet()) {
                source = source.replace("${" + a.getKey() + "}", a.getValue());
            }
            if (!source.endsWith("/")) {
                files.put(m.group(2), source);
                continue;
            }
            try (Stream<Path> listed = Files.list(root.resolve(source))) {
                for (Path f : listed.sorted().toList()) {
                    String name = f.getFileName().toString();
                    files.put(m.group(2) + name, source + name);
                }
            }
        }
        return files;
    }

    /** TaskManagers for the job's parallelism, as many slots each as the configuration gives. */
    int taskManagers() {
        int slots =
                Integer.parseInt(
                        deployment
                                .path("spec")
                                .path("flinkConfiguration")
                                .path("taskmanager.numberOfTaskSlots")
                                .asString("1"));
        int parallelism = job().path("parallelism").asInt();
        return (parallelism + slots - 1) / slots;
    }

    /**
     * A path in the pod, on this machine: {@code /opt/flink/x} is {@code home/x} (home is the
     * processes' {@code FLINK_HOME}, so {@code /opt/flink/usrlib} is the entry point's usrlib).
     */
    static Path inPod(Path home, String podPath) {
        if (!podPath.startsWith(FLINK_HOME)) {
            throw new AssertionError(podPath + " is outside " + FLINK_HOME + ": map it here");
        }
        return home.resolve(podPath.substring(FLINK_HOME.length()));
    }

    /** A text with every {@code /opt/flink/} path in it mapped into {@code home}. */
    static String rebased(Path home, String text) {
        return text.replace("file://" + FLINK_HOME, "file://" + home + "/")
                .replaceAll(
                        "(^|[\\s,;'])" + FLINK_HOME, "$1" + Matcher.quoteReplacement(home + "/"));
    }
}
