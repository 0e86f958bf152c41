package dev.autocdc.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One cluster of processes ({@code deploy/local-cluster}: a JobManager and two TaskManagers of two
 * slots each, checkpoints every 2 s) for the cluster tests that neither kill its processes nor need
 * a configuration of their own. The first test of a test JVM that asks starts it; it stops when
 * that JVM exits. A test hands it back with {@link #release}, which cancels every job the test left
 * running, so that the next test finds the cluster idle: all four slots free, no job running.
 *
 * <p>The tests with a cluster of their own: {@code TaskManagerKillTest} (kills TaskManagers),
 * {@code SessionClusterTest} (tests start and stop themselves), {@code ApplicationModeTest}
 * (another entry point), {@code LocalMetricsTest} (no cluster).
 */
final class SharedCluster {
    static final String CONF = "execution.checkpointing.interval: 2s";

    private static final Pattern ACTIVE_JOB =
            Pattern.compile(
                    "\"jid\":\"([0-9a-f]{32})\"[^}]*?\"state\":\"(CREATED|INITIALIZING|RUNNING"
                            + "|RESTARTING|FAILING|CANCELLING|SUSPENDED|RECONCILING)\"");

    private static LocalCluster cluster;
    private static Path home;

    private SharedCluster() {}

    /** The shared cluster, started on first use. */
    static synchronized LocalCluster get() throws Exception {
        if (cluster == null) {
            home = Files.createTempDirectory("autocdc-shared-cluster");
            LocalCluster started = new LocalCluster(home, CONF, Map.of());
            try {
                started.start("--taskmanagers", "2", "--slots", "2");
            } catch (Exception | AssertionError e) {
                started.stop();
                throw e;
            }
            cluster = started;
            Runtime.getRuntime().addShutdownHook(new Thread(SharedCluster::stop));
        }
        return cluster;
    }

    /**
     * Cancels every job still running on the shared cluster and waits until none is (a test's last
     * step, whether it passed or failed).
     */
    static synchronized void release() throws Exception {
        if (cluster == null) {
            return;
        }
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (true) {
            List<String> active = new ArrayList<>();
            for (Matcher m = ACTIVE_JOB.matcher(cluster.get("/jobs/overview")); m.find(); ) {
                active.add(m.group(1));
            }
            if (active.isEmpty()) {
                return;
            }
            if (System.nanoTime() > deadline) { // said, not thrown: the test's own failure stands
                System.err.println("SharedCluster: jobs still active after cancelling: " + active);
                return;
            }
            for (String job : active) {
                cluster.send(
                        HttpRequest.newBuilder(cluster.rest("/jobs/" + job + "?mode=cancel"))
                                .method("PATCH", HttpRequest.BodyPublishers.noBody()));
            }
            Thread.sleep(500);
        }
    }

    private static synchronized void stop() {
        try {
            cluster.stop();
        } catch (Exception e) {
            System.err.println("SharedCluster: stop failed: " + e);
        }
        try (Stream<Path> files = Files.walk(home)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
