package dev.autocdc.job.cli;

import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.core.execution.JobClient;

/**
 * A local run's job that a stop of the CLI's JVM (Ctrl-C, SIGTERM) ends cleanly: a shutdown hook
 * cancels the job and waits for it, so that its sinks close (the dead-letter file is flushed), then
 * prints the run's summary (a cancelled job has no result: the summary reads the run's metrics) and
 * says the run was interrupted. The JVM then exits as an interrupted process does (130 after
 * SIGINT, 143 after SIGTERM). A job that ends on its own removes the hook.
 */
final class StoppableRun {
    /** How long a stop waits for the job to cancel, and then for its accumulators. */
    static final Duration GRACE = Duration.ofSeconds(30);

    private StoppableRun() {}

    /**
     * Waits for the job's result.
     *
     * @param summary prints the run's summary, when it is stopped
     */
    static JobExecutionResult await(JobClient job, Runnable summary, PrintStream err)
            throws Exception {
        AtomicBoolean stopping = new AtomicBoolean();
        Thread hook =
                new Thread(
                        () -> {
                            stopping.set(true);
                            stop(job, summary, err);
                        },
                        "autocdc-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            return job.getJobExecutionResult().get();
        } catch (Exception e) {
            if (stopping.get()) {
                Thread.sleep(Long.MAX_VALUE); // the hook says how the run ended; the JVM halts
            }
            throw e;
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException alreadyStopping) {
                // the JVM is stopping: the hook runs
            }
        }
    }

    private static void stop(JobClient job, Runnable summary, PrintStream err) {
        err.println("autocdc: stopping: cancelling the job (up to " + GRACE.toSeconds() + " s)");
        try {
            job.cancel().get(GRACE.toMillis(), TimeUnit.MILLISECONDS);
            try {
                job.getJobExecutionResult().get(GRACE.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException cancelled) {
                // the job ended cancelled, its sinks closed
            }
            summary.run();
            err.println(
                    "autocdc: interrupted: the job was cancelled; what it wrote is flushed, and a"
                            + " target table keeps what its last checkpoint committed");
        } catch (Exception e) {
            err.println(
                    "autocdc: interrupted: the job did not cancel cleanly ("
                            + ErrorMessages.root(e)
                            + "); what it wrote since its last flush may be lost");
        }
        err.flush();
    }
}
