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
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Clusters of processes ({@code deploy/local-cluster}: a JobManager and two TaskManagers of two
 * slots each, checkpoints every 2 s) shared by the cluster tests that neither kill a process nor
 * need a configuration of their own. There are two, one per lane: a test names its lane with
 * {@code @ResourceLock(SharedCluster.FIRST)} or {@code @ResourceLock(SharedCluster.SECOND)}, so
 * that JUnit runs the tests of a lane one at a time while the other lane and the tests with
 * clusters of their own run beside them (three test classes run at once; docs/testing.md). The
 * lanes halve the time the shared tests take one after the other, which was the cluster module's
 * longest path. The first test of a test JVM that asks for a lane's cluster starts it; it stops
 * when that JVM exits. A test hands it back with {@link #release}, which cancels every job the test
 * left running, so that the next test of the lane finds the cluster idle: all four slots free, no
 * job running.
 *
 * <p>The tests with a cluster of their own: {@code TaskManagerKillTest} (kills TaskManagers),
 * {@code SessionClusterTest} (tests start and stop themselves), {@code ApplicationModeTest} and
 * {@code KubernetesApplicationTest} (other entry points), {@code LocalMetricsTest} (no cluster).
 */
final class SharedCluster {
    static final String CONF = "execution.checkpointing.interval: 2s";

    /** The first lane's JUnit resource lock. */
    static final String FIRST = "autocdc-shared-cluster-1";

    /** The second lane's JUnit resource lock. */
    static final String SECOND = "autocdc-shared-cluster-2";

    private static final Pattern ACTIVE_JOB =
            Pattern.compile(
                    "\"jid\":\"([0-9a-f]{32})\"[^}]*?\"state\":\"(CREATED|INITIALIZING|RUNNING"
                            + "|RESTARTING|FAILING|CANCELLING|SUSPENDED|RECONCILING)\"");

    private static final Map<String, LocalCluster> CLUSTERS = new ConcurrentHashMap<>();

    private SharedCluster() {}

    /**
     * The cluster of the test's lane (the name of its class's {@code @ResourceLock}), started on
     * first use. The lane's lock keeps a lane's tests from calling at once.
     */
    static LocalCluster get(Class<?> test) throws Exception {
        String lane = lane(test);
        LocalCluster cluster = CLUSTERS.get(lane);
        if (cluster == null) {
            Path home = Files.createTempDirectory(lane);
            LocalCluster started = new LocalCluster(home, CONF, Map.of());
            try {
                started.start("--taskmanagers", "2", "--slots", "2");
            } catch (Exception | AssertionError e) {
                started.stop();
                throw e;
            }
            cluster = started;
            CLUSTERS.put(lane, cluster);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(started, home)));
        }
        return cluster;
    }

    private static String lane(Class<?> test) {
        ResourceLock lock = test.getAnnotation(ResourceLock.class);
        if (lock == null || !(FIRST.equals(lock.value()) || SECOND.equals(lock.value()))) {
            throw new IllegalStateException(
                    test.getSimpleName()
                            + " uses a shared cluster without its lane's lock: annotate it with"
                            + " @ResourceLock(SharedCluster.FIRST) or (SharedCluster.SECOND)");
        }
        return lock.value();
    }

    /**
     * Cancels every job still running on the cluster of the test's lane and waits until none is (a
     * test's last step, whether it passed or failed).
     */
    static void release(Class<?> test) throws Exception {
        LocalCluster cluster = CLUSTERS.get(lane(test));
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

    private static void stop(LocalCluster cluster, Path home) {
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
