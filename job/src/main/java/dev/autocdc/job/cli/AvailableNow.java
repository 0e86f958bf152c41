package dev.autocdc.job.cli;

import dev.autocdc.job.plan.KafkaBounds;
import dev.autocdc.job.plan.PlannedFlow;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

/**
 * A triggered run ({@code run --available-now --savepoint-dir DIR}), as Databricks' triggered
 * pipelines and Spark's {@code availableNow} run: start from the newest savepoint in DIR, read
 * every Kafka source up to the end offsets noted at the start ({@link KafkaBounds}), then stop with
 * a savepoint into DIR, which the next run starts from. Nothing is read twice or skipped between
 * runs: the savepoint holds the sources' offsets with the state they produced.
 */
final class AvailableNow {
    /** How often the committed offsets are compared with the ends. */
    static final Duration POLL = Duration.ofMillis(500);

    /** The checkpoint interval when none is configured: offsets are committed at checkpoints. */
    static final Duration CHECKPOINTS = Duration.ofSeconds(1);

    private AvailableNow() {}

    /**
     * The newest savepoint in {@code dir}: the directory whose {@code _metadata} was written last
     * (an object store gives its "directories" no time of their own); null: none.
     */
    static String newestSavepoint(String dir) throws IOException {
        Path path = new Path(dir);
        FileSystem fs = path.getFileSystem();
        if (!fs.exists(path)) {
            return null;
        }
        Path newest = null;
        long newestTime = Long.MIN_VALUE;
        for (FileStatus s : fs.listStatus(path)) {
            Path metadata = new Path(s.getPath(), "_metadata");
            if (s.isDir() && fs.exists(metadata)) {
                long written = fs.getFileStatus(metadata).getModificationTime();
                if (newest == null || written > newestTime) {
                    newest = s.getPath();
                    newestTime = written;
                }
            }
        }
        return newest == null ? null : newest.toString();
    }

    /**
     * Starts from the newest savepoint in {@code dir}, unless {@code --from-savepoint} names one.
     */
    static void resume(Configuration conf, String dir, PrintStream err) throws IOException {
        if (conf.getOptional(StateRecoveryOptions.SAVEPOINT_PATH).isPresent()) {
            return;
        }
        String newest = newestSavepoint(dir);
        if (newest != null) {
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, newest);
            err.println("autocdc: --available-now: starting from savepoint " + newest);
        }
    }

    /**
     * Notes where the flows' Kafka sources end and turns checkpoints on (every {@link #CHECKPOINTS}
     * unless the configuration sets an interval).
     *
     * @throws dev.autocdc.job.flow.FlowSyntaxException naming a source it cannot bound
     */
    static KafkaBounds bounds(
            StreamExecutionEnvironment env,
            StreamTableEnvironment tEnv,
            List<PlannedFlow> flows,
            PrintStream err)
            throws Exception {
        boolean restored =
                env.getConfiguration().getOptional(StateRecoveryOptions.SAVEPOINT_PATH).isPresent();
        KafkaBounds bounds = KafkaBounds.of(tEnv, flows, restored);
        bounds.noteEnds();
        bounds.describe().forEach(line -> err.println("autocdc: --available-now: " + line));
        if (!env.getCheckpointConfig().isCheckpointingEnabled()) {
            env.enableCheckpointing(CHECKPOINTS.toMillis());
        }
        return bounds;
    }

    /** Runs the job until it has caught up, stops it with a savepoint into {@code dir}. */
    static JobExecutionResult run(
            StreamExecutionEnvironment env,
            String jobName,
            KafkaBounds bounds,
            String dir,
            PrintStream err)
            throws Exception {
        JobClient job = env.executeAsync(jobName);
        String savepoint =
                stopWhenCaughtUp(
                        job,
                        bounds,
                        dir,
                        Duration.ofMillis(env.getCheckpointConfig().getCheckpointInterval()),
                        err);
        err.println(
                "autocdc: savepoint "
                        + savepoint
                        + "; the next run with --savepoint-dir "
                        + dir
                        + " starts from it");
        return job.getJobExecutionResult().get();
    }

    /** Waits until every task of the job runs (a savepoint needs them all). */
    private static void awaitRunning(JobClient job) throws Exception {
        JobStatus status = job.getJobStatus().get();
        while (status != JobStatus.RUNNING) {
            if (status.isGloballyTerminalState()) {
                job.getJobExecutionResult().get(); // its failure, if it failed
                throw new IllegalStateException("the job ended before it ran: " + status);
            }
            Thread.sleep(POLL.toMillis());
            status = job.getJobStatus().get();
        }
    }

    /**
     * Waits until the sources' committed offsets reach the ends noted at the start, then stops the
     * job with a savepoint into {@code dir}; returns the savepoint's path.
     *
     * @throws IllegalStateException when the job ends on its own first
     */
    static String stopWhenCaughtUp(
            JobClient job, KafkaBounds bounds, String dir, Duration checkpoints, PrintStream err)
            throws Exception {
        try {
            awaitRunning(job);
        } catch (RuntimeException | ExecutionException noHandle) {
            // a jar run from the dashboard's REST API: Flink gives the program no handle
            throw new IllegalStateException(
                    "run --available-now must watch its job and stop it, which a program run from"
                            + " the dashboard's REST API cannot; job "
                            + job.getJobID()
                            + " runs on: cancel it there, and start triggered runs with flink run"
                            + " (attached) or in application mode",
                    noHandle);
        }
        // the group's offsets may be an earlier job's: once this job has checkpointed, its own
        Thread.sleep(2 * checkpoints.toMillis());
        List<String> behind = bounds.behind();
        while (!behind.isEmpty()) {
            if (job.getJobStatus().get().isGloballyTerminalState()) {
                job.getJobExecutionResult().get(); // its failure, if it failed
                throw new IllegalStateException(
                        "the job ended before it reached the offsets noted at the start: "
                                + behind);
            }
            Thread.sleep(POLL.toMillis());
            behind = bounds.behind();
        }
        err.println("autocdc: caught up to the offsets noted at the start; taking a savepoint");
        for (int attempt = 1; ; attempt++) {
            try {
                return job.stopWithSavepoint(false, dir, SavepointFormatType.CANONICAL)
                        .get(10, TimeUnit.MINUTES);
            } catch (ExecutionException e) {
                // a task still deploying, a checkpoint in the way: the job runs on; try again
                if (attempt == 3 || job.getJobStatus().get().isGloballyTerminalState()) {
                    throw e;
                }
                Thread.sleep(checkpoints.toMillis());
            }
        }
    }
}
