package dev.autocdc.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.embedded.kafka.EmbeddedKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * {@code deploy/local-cluster}'s configuration keeps a cancelled job's last checkpoint ({@code
 * execution.checkpointing.externalized-checkpoint-retention: RETAIN_ON_CANCELLATION}; Flink's
 * default deletes it), as docs/deploy.md says: after a cancel, {@code checkpoints/<job>/chk-<n>/}
 * holds its {@code _metadata}, and a new job starts from it as {@code flink run -s} would start it.
 * On a shared cluster ({@link SharedCluster}).
 */
@ResourceLock(SharedCluster.SECOND)
class CheckpointRetentionTest {
    private static final Pattern COMPLETED = Pattern.compile("\"completed\":(\\d+)");

    @TempDir Path dir;

    @Test
    void aCancelledJobsLastCheckpointStaysAndAJobStartsFromIt() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            Scd2Workload w = new Scd2Workload(5, 20, 3);
            Topics.produce(kafka, "cdc_retained", w.lines, 1);
            Path flow = dir.resolve("retained.sql");
            Files.writeString(
                    flow,
                    Scd2Workload.flow(
                            kafka.bootstrapServers(), "cdc_retained", "hist_retained", false));
            LocalCluster cluster = SharedCluster.get(CheckpointRetentionTest.class);
            try {
                String job = cluster.submit(dir.resolve("run-1.log"), flow, 1, null);
                awaitCompletedCheckpoint(cluster, job);
                cluster.cancel(job);
                Path jobDir = cluster.home.resolve("checkpoints").resolve(job);
                List<Path> kept;
                try (Stream<Path> files = Files.list(jobDir)) {
                    kept =
                            files.filter(p -> p.getFileName().toString().startsWith("chk-"))
                                    .filter(p -> Files.exists(p.resolve("_metadata")))
                                    .toList();
                }
                assertThat(kept).as("checkpoints of the cancelled job in " + jobDir).isNotEmpty();
                String again =
                        cluster.submit(
                                dir.resolve("run-2.log"), flow, 1, kept.get(0).toUri().toString());
                assertThat(cluster.jobState(again)).isEqualTo("RUNNING");
            } finally {
                SharedCluster.release(CheckpointRetentionTest.class);
            }
        }
    }

    private static void awaitCompletedCheckpoint(LocalCluster cluster, String job)
            throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (System.nanoTime() < deadline) {
            Matcher m = COMPLETED.matcher(cluster.get("/jobs/" + job + "/checkpoints"));
            if (m.find() && Long.parseLong(m.group(1)) > 0) {
                return;
            }
            Thread.sleep(500);
        }
        throw new AssertionError("no checkpoint of " + job + " completed within a minute");
    }
}
