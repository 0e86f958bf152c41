package dev.autocdc.job.snapshots;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.job.plan.FlowJob;
import dev.autocdc.job.plan.PlannedFlow;
import dev.autocdc.job.plan.TargetTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.CloseableIterator;

/** A flow's job running until closed, its target materialized from its changelog as it comes. */
final class RunningTarget implements AutoCloseable {
    private final TargetTable table;
    private final JobClient job;

    RunningTarget(StreamExecutionEnvironment env, StreamTableEnvironment tEnv, PlannedFlow flow)
            throws Exception {
        CloseableIterator<RowData> changelog =
                new FlowJob(tEnv, List.of(flow)).attach().get(flow.flow().target()).collectAsync();
        table = new TargetTable(flow.spec());
        job = env.executeAsync("flow " + flow.flow().name());
        Thread reader =
                new Thread(
                        () -> {
                            try (changelog) {
                                while (changelog.hasNext()) {
                                    RowData r = changelog.next();
                                    synchronized (table) {
                                        table.apply(r);
                                    }
                                }
                            } catch (Exception cancelled) {
                                // the job is cancelled at the end of the test
                            }
                        });
        reader.setDaemon(true);
        reader.start();
    }

    /** The target's rows as JSON lines, each mapped by {@code shown}, sorted. */
    List<String> rows(Function<String, String> shown) {
        synchronized (table) {
            return table.toJsonLines().lines().map(shown).sorted().toList();
        }
    }

    /**
     * Waits up to a minute for the target's rows, mapped by {@code shown}, to be {@code expected}.
     */
    void await(Function<String, String> shown, String... expected) throws InterruptedException {
        List<String> want = new ArrayList<>(List.of(expected));
        want.sort(null);
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (!rows(shown).equals(want) && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertThat(rows(shown)).isEqualTo(want);
    }

    @Override
    public void close() throws Exception {
        job.cancel().get();
    }
}
