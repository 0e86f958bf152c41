package dev.autocdc.job.cli;

import dev.autocdc.job.plan.PlannedFlow;
import dev.autocdc.job.plan.TargetTable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.transformations.WithBoundedness;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.CloseableIterator;

/**
 * {@code run --materialize}: runs a job on bounded sources and builds each target's final table
 * from its changelog while the job runs, so that memory follows the tables, not the events, and the
 * job never waits for its results to be read.
 */
final class Materializer {

    private Materializer() {}

    /**
     * Runs the job and applies each collected changelog to its target's table as it arrives. The
     * collect sinks hold only a small buffer, and a job whose results wait for it to end stalls
     * once they fill; there is one reader per target, since one stalled target can hold back a
     * source the others share.
     *
     * @param collected each flow's changelog, from {@code collectAsync()} before the job is built
     */
    static Result run(
            StreamExecutionEnvironment env,
            String jobName,
            Map<PlannedFlow, CloseableIterator<RowData>> collected)
            throws Exception {
        JobClient client = env.executeAsync(jobName);
        Map<PlannedFlow, TargetTable> tables = new LinkedHashMap<>();
        List<Future<?>> readers = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(collected.size());
        try {
            for (Map.Entry<PlannedFlow, CloseableIterator<RowData>> e : collected.entrySet()) {
                TargetTable table = new TargetTable(e.getKey().spec());
                tables.put(e.getKey(), table);
                readers.add(
                        pool.submit(
                                () -> {
                                    try (CloseableIterator<RowData> it = e.getValue()) {
                                        it.forEachRemaining(table::apply);
                                    }
                                    return null;
                                }));
            }
            for (Future<?> r : readers) {
                try {
                    r.get();
                } catch (ExecutionException failed) {
                    throw failed.getCause() instanceof Exception cause ? cause : failed;
                }
            }
        } finally {
            pool.shutdownNow();
        }
        return new Result(tables, client.getJobExecutionResult().get());
    }

    /** Each flow's final table, and the job's result (its accumulators count the letters). */
    record Result(Map<PlannedFlow, TargetTable> tables, JobExecutionResult job) {}

    /**
     * OUT.jsonl for one flow; OUT.&lt;target&gt;.jsonl for each target when the script has several.
     */
    static Path file(Path out, String target, int flows) {
        if (flows == 1) {
            return out;
        }
        String name = out.getFileName().toString();
        int dot = name.lastIndexOf('.');
        String file =
                dot < 0
                        ? name + "." + target
                        : name.substring(0, dot) + "." + target + name.substring(dot);
        return out.resolveSibling(file);
    }

    /** The name of a source that does not end, or null when all end. */
    static String unboundedSource(StreamExecutionEnvironment env) {
        for (Transformation<?> sink : env.getTransformations()) {
            for (Transformation<?> t : sink.getTransitivePredecessors()) {
                if (t instanceof WithBoundedness bounded
                        && bounded.getBoundedness() == Boundedness.CONTINUOUS_UNBOUNDED) {
                    return t.getName();
                }
            }
        }
        return null;
    }
}
