package dev.autocdc.cluster;

import dev.autocdc.embedded.kafka.FreePorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * {@code deploy/local-cluster}, driven as a user drives it: every call runs the script in its own
 * process, with the cluster's directory and free ports of this test.
 */
final class LocalCluster {
    static final Path SCRIPT = Path.of("..", "deploy", "local-cluster").toAbsolutePath();

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * The JVM options of the cluster's processes and clients: C1 only, and the parallel collector.
     * A test's processes live for seconds to a minute, mostly in code they run once (startup,
     * planning, restore), which C2 would compile for nothing on a machine whose two cores the tests
     * keep busy; G1's concurrent threads cost more than they return there too.
     */
    static final String JAVA_OPTS = "-XX:TieredStopAtLevel=1 -XX:+UseParallelGC";

    /**
     * The ports the processes' Prometheus reporters take the first free one of: wider than the
     * script's default of 12, since the clusters of three test classes run at once, two shared ones
     * among them, each process taking one.
     */
    private static final String PROMETHEUS_PORTS = "9249-9299";

    final Path home;
    final int restPort;
    private final int rpcPort;
    private final HttpClient http = HttpClient.newHttpClient();
    private final String extraConf;
    private final Map<String, String> env;
    private String jarId;

    LocalCluster(Path home) {
        this(home, "", Map.of());
    }

    /**
     * @param extraConf lines for the cluster's config.yaml ({@code AUTOCDC_CLUSTER_CONF})
     * @param env environment variables of the cluster's processes
     */
    LocalCluster(Path home, String extraConf, Map<String, String> env) {
        this.home = home;
        this.extraConf = extraConf;
        this.env = env;
        int[] ports = FreePorts.of(2);
        this.restPort = ports[0];
        this.rpcPort = ports[1];
    }

    /** The job module's jar for clusters (built in the package phase, before this module). */
    static Path clusterJar() {
        try (Stream<Path> files = Files.list(Path.of("..", "job", "target"))) {
            return files.filter(p -> p.getFileName().toString().endsWith("-cluster.jar"))
                    .findFirst()
                    .orElseThrow(
                            () -> new AssertionError("job/target has no -cluster.jar: package it"))
                    .toAbsolutePath();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code deploy/local-cluster start ...}; returns what it printed, or fails with it. */
    String start(String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of("start", "--rest-port", "" + restPort));
        args.addAll(List.of("--rpc-port", "" + rpcPort));
        args.addAll(List.of(extra));
        Result r = script(args, Duration.ofMinutes(4)); // application mode: until the job runs
        if (r.code != 0) {
            throw new AssertionError("local-cluster start failed (" + r.code + "):\n" + r.output);
        }
        return r.output;
    }

    /** {@code deploy/local-cluster add-taskmanager N}. */
    Result addTaskManager(int n) throws Exception {
        return script(List.of("add-taskmanager", "" + n), Duration.ofMinutes(1));
    }

    /** {@code deploy/local-cluster status}. */
    Result status() throws Exception {
        return script(List.of("status"), Duration.ofMinutes(1));
    }

    /** {@code deploy/local-cluster stop}. */
    Result stop() throws Exception {
        return script(List.of("stop"), Duration.ofMinutes(2));
    }

    /** {@code deploy/local-cluster flink ARGS}, started and left running. */
    Process flink(Path log, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(SCRIPT.toString(), "flink"));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.redirectOutput(log.toFile());
        pb.environment().put("AUTOCDC_CLUSTER_DIR", home.toString());
        pb.environment().put("AUTOCDC_CLUSTER_JAVA_OPTS", JAVA_OPTS);
        return pb.start();
    }

    /**
     * Uploads the cluster jar through the REST API ({@code POST /jars/upload}, as the web dashboard
     * does), once per cluster; the jar's id on the cluster.
     */
    synchronized String uploadedJar() throws Exception {
        if (jarId == null) {
            Path jar = clusterJar();
            String boundary = "autocdc" + System.nanoTime();
            byte[] head =
                    ("--"
                                    + boundary
                                    + "\r\nContent-Disposition: form-data; name=\"jarfile\";"
                                    + " filename=\""
                                    + jar.getFileName()
                                    + "\"\r\nContent-Type: application/x-java-archive\r\n\r\n")
                            .getBytes(StandardCharsets.UTF_8);
            byte[] tail = ("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8);
            HttpResponse<String> upload =
                    send(
                            HttpRequest.newBuilder(rest("/jars/upload"))
                                    .header(
                                            "Content-Type",
                                            "multipart/form-data; boundary=" + boundary)
                                    .POST(
                                            HttpRequest.BodyPublishers.ofByteArrays(
                                                    List.of(head, Files.readAllBytes(jar), tail))));
            var m = Pattern.compile("\"filename\":\"[^\"]*/([^\"/]+)\"").matcher(upload.body());
            if (upload.statusCode() != 200 || !m.find()) {
                throw new AssertionError("jar upload failed: " + upload.body());
            }
            jarId = m.group(1);
        }
        return jarId;
    }

    /**
     * {@code run --flow F} of the uploaded cluster jar at parallelism N, from {@code savepoint}
     * when not null, strict (no {@code allowNonRestoredState}), through the REST API ({@code POST
     * /jars/:id/run}: the JobManager plans the flow, so no client process starts); the job's id
     * once it runs. {@code log} receives the response. {@code SessionClusterTest} submits with
     * {@code flink run} as well.
     */
    String submit(Path log, Path flow, int parallelism, String savepoint) throws Exception {
        ObjectNode body = JSON.createObjectNode();
        body.putArray("programArgsList").add("run").add("--flow").add(flow.toString());
        body.put("parallelism", parallelism);
        body.put("allowNonRestoredState", false);
        if (savepoint != null) {
            body.put("savepointPath", savepoint);
        }
        HttpResponse<String> run =
                send(
                        HttpRequest.newBuilder(rest("/jars/" + uploadedJar() + "/run"))
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(body.toString())));
        Files.writeString(log, run.body());
        String job = JSON.readTree(run.body()).path("jobid").asText("");
        if (run.statusCode() != 200 || job.isEmpty()) {
            throw new AssertionError("jar run failed (" + run.statusCode() + "): " + run.body());
        }
        awaitJobState(job, "RUNNING", Duration.ofMinutes(2));
        return job;
    }

    /**
     * Stop with a savepoint in {@code <home>/savepoints} ({@code POST /jobs/:id/stop}, what {@code
     * flink stop} sends), waiting for it; the savepoint's path. {@code log} receives the result.
     */
    String stopWithSavepoint(Path log, String job) throws Exception {
        ObjectNode body = JSON.createObjectNode();
        body.put("targetDirectory", home.resolve("savepoints").toUri().toString());
        body.put("drain", false);
        HttpResponse<String> stop =
                send(
                        HttpRequest.newBuilder(rest("/jobs/" + job + "/stop"))
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(body.toString())));
        String trigger = JSON.readTree(stop.body()).path("request-id").asText("");
        if (stop.statusCode() != 202 || trigger.isEmpty()) {
            throw new AssertionError("stop failed (" + stop.statusCode() + "): " + stop.body());
        }
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (true) {
            String status = get("/jobs/" + job + "/savepoints/" + trigger);
            Files.writeString(log, status);
            JsonNode n = JSON.readTree(status);
            if (n.has("errors")) {
                throw new AssertionError(
                        "stop with savepoint: the status request failed: " + status);
            }
            if ("COMPLETED".equals(n.path("status").path("id").asText())) {
                String location = n.path("operation").path("location").asText("");
                if (location.isEmpty()) {
                    throw new AssertionError("stop with savepoint failed: " + status);
                }
                awaitJobState(job, "FINISHED", Duration.ofMinutes(1));
                return location;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("stop with savepoint not done in 3 min: " + status);
            }
            Thread.sleep(200);
        }
    }

    /** Cancels the job ({@code PATCH /jobs/:id?mode=cancel}) and waits until it is CANCELED. */
    void cancel(String job) throws Exception {
        HttpResponse<String> cancel =
                send(
                        HttpRequest.newBuilder(rest("/jobs/" + job + "?mode=cancel"))
                                .method("PATCH", HttpRequest.BodyPublishers.noBody()));
        if (cancel.statusCode() != 202) {
            throw new AssertionError(
                    "cancel failed (" + cancel.statusCode() + "): " + cancel.body());
        }
        awaitJobState(job, "CANCELED", Duration.ofMinutes(1));
    }

    /**
     * The records that the job's vertex whose name starts with {@code vertex} received in this run
     * ({@code read-records}, as the REST API reports it), once at least {@code expected} or after
     * 60 s.
     */
    long awaitRead(String job, String vertex, long expected) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        long read = -1;
        while (System.nanoTime() < deadline) {
            for (JsonNode v : JSON.readTree(get("/jobs/" + job)).path("vertices")) {
                if (v.path("name").asText().startsWith(vertex)) {
                    read = v.path("metrics").path("read-records").asLong();
                }
            }
            if (read >= expected) {
                return read;
            }
            Thread.sleep(1_000);
        }
        return read;
    }

    /**
     * Whether the job's exceptions ({@code /jobs/:id/exceptions}) mention {@code text} within
     * {@code timeout}.
     */
    boolean awaitException(String job, String text, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (get("/jobs/" + job + "/exceptions").contains(text)) {
                return true;
            }
            Thread.sleep(1_000);
        }
        return false;
    }

    /**
     * One line on how the job fares, for a test's progress log: its state, restarts ({@code
     * numRestarts}), checkpoints completed and failed with the last one's duration, and the records
     * each vertex received in the current attempt ({@code read-records}).
     */
    String progress(String job) throws Exception {
        JsonNode j = JSON.readTree(get("/jobs/" + job));
        JsonNode c = JSON.readTree(get("/jobs/" + job + "/checkpoints"));
        StringBuilder line =
                new StringBuilder(
                        "%s restarts=%d checkpoints=%d/%d failed, last %d ms, read"
                                .formatted(
                                        j.path("state").asText(),
                                        restarts(job),
                                        c.path("counts").path("completed").asLong(),
                                        c.path("counts").path("failed").asLong(),
                                        c.path("latest")
                                                .path("completed")
                                                .path("end_to_end_duration")
                                                .asLong(-1)));
        for (JsonNode v : j.path("vertices")) {
            String name = v.path("name").asText();
            line.append(' ')
                    .append(name, 0, Math.min(name.length(), 24))
                    .append('=')
                    .append(v.path("metrics").path("read-records").asLong());
        }
        return line.toString();
    }

    /**
     * The job's {@code numRestarts}, Flink's count of its restarts (of one or more regions each).
     */
    long restarts(String job) throws Exception {
        return JSON.readTree(get("/jobs/" + job + "/metrics?get=numRestarts"))
                .path(0)
                .path("value")
                .asLong();
    }

    /** Copies the cluster's logs into {@code to}, so that they outlive a temporary directory. */
    void keepLogs(Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> files = Files.list(home.resolve("log"))) {
            for (Path f : files.toList()) {
                Files.copy(f, to.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    /** The pids of the cluster's processes, from the pid files the script wrote. */
    List<Long> pids() throws IOException {
        List<Long> pids = new ArrayList<>();
        try (Stream<Path> files = Files.list(home)) {
            for (Path f : files.filter(f -> f.toString().endsWith(".pid")).toList()) {
                pids.add(Long.parseLong(Files.readString(f).strip()));
            }
        }
        return pids;
    }

    static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    /** GET on the REST API; the body. */
    String get(String path) throws Exception {
        return http.send(
                        HttpRequest.newBuilder(rest(path)).timeout(Duration.ofSeconds(10)).build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }

    HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return http.send(
                request.timeout(Duration.ofSeconds(60)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    URI rest(String path) {
        return URI.create("http://localhost:" + restPort + path);
    }

    /**
     * The job's state as the REST API's job overview reports it, or null when it has no such job
     * (the overview, because {@code /jobs/:id} fails for the job of an application that failed
     * before it submitted one).
     */
    String jobState(String jobId) throws Exception {
        var m =
                Pattern.compile("\"jid\":\"" + jobId + "\"[^}]*?\"state\":\"([A-Z_]+)\"")
                        .matcher(get("/jobs/overview"));
        return m.find() ? m.group(1) : null;
    }

    /** The one job the cluster lists, waiting for it to show. */
    String onlyJobId(Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            var m = Pattern.compile("\"id\":\"([0-9a-f]{32})\"").matcher(get("/jobs"));
            if (m.find()) {
                return m.group(1);
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no job on the cluster after " + timeout);
            }
            Thread.sleep(500);
        }
    }

    void awaitJobState(String jobId, String state, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        String seen = null;
        while (System.nanoTime() < deadline) {
            seen = jobState(jobId);
            if (state.equals(seen)) {
                return;
            }
            Thread.sleep(500);
        }
        throw new AssertionError("job " + jobId + " is " + seen + ", not " + state);
    }

    /** The port of the process's Prometheus endpoint, from its log. */
    int prometheusPort(String process) throws IOException {
        var m =
                Pattern.compile("Started PrometheusReporter HTTP server on port (\\d+)")
                        .matcher(log(process));
        if (!m.find()) {
            throw new AssertionError(process + " started no Prometheus endpoint");
        }
        return Integer.parseInt(m.group(1));
    }

    String log(String process) throws IOException {
        Path f = home.resolve("log").resolve(process + ".log");
        return Files.exists(f) ? Files.readString(f) : "";
    }

    record Result(int code, String output) {}

    private Result script(List<String> args, Duration timeout) throws Exception {
        List<String> command = new ArrayList<>(List.of(SCRIPT.toString()));
        command.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("AUTOCDC_CLUSTER_DIR", home.toString());
        pb.environment().put("AUTOCDC_CLUSTER_JAVA_OPTS", JAVA_OPTS);
        pb.environment().put("AUTOCDC_PROMETHEUS_PORTS", PROMETHEUS_PORTS);
        pb.environment().put("AUTOCDC_CLUSTER_CONF", extraConf);
        pb.environment().putAll(env);
        Process p = pb.start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("local-cluster " + args + " did not end in " + timeout);
        }
        return new Result(p.exitValue(), output);
    }

    static int freePort() {
        return FreePorts.of(1)[0];
    }
}
