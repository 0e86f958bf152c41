package dev.autocdc.job.ops;

import dev.autocdc.job.flow.FlowScript;
import dev.autocdc.job.plan.FlowPlanner;
import dev.autocdc.job.plan.PlannedFlow;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

/**
 * One bootstrap as {@code autocdc bootstrap} and {@code CALL autocdc.sys.bootstrap_flow} run it:
 * plans the flow file without creating targets, reads each {@code [FLOW=]TABLE} it is given into
 * its flow's state ({@link Bootstrap#write}) and returns what it loaded and what to run next, a
 * line each. The other flows of the file start empty.
 */
public final class BootstrapRun {
    private BootstrapRun() {}

    /**
     * @param environments fresh execution environments with the run's configuration: one plans, one
     *     writes the savepoint (in batch)
     * @param from the {@code [FLOW=]TABLE} values
     * @param asOf an SCD type 1 table's sequence, an SQL expression; null: none
     * @param savepoint where the savepoint goes (a directory or a file-system URI)
     * @param maxParallelism the savepoint's key groups; null: {@code pipeline.max-parallelism},
     *     else {@value BootstrapSources#DEFAULT_MAX_PARALLELISM}
     * @param words how messages name the inputs: the CLI's options or the procedure's arguments
     * @param runAgain how the flow file is started in the caller's words, after "start the flow
     *     file from it: "
     */
    public static List<String> run(
            Supplier<StreamExecutionEnvironment> environments,
            FlowScript script,
            List<String> from,
            String asOf,
            String savepoint,
            Integer maxParallelism,
            BootstrapWords words,
            String runAgain)
            throws Exception {
        StreamExecutionEnvironment planning = environments.get();
        List<PlannedFlow> flows =
                new FlowPlanner(StreamTableEnvironment.create(planning), false).plan(script);
        List<Bootstrap.Source> sources = new ArrayList<>();
        for (String f : from) {
            sources.add(BootstrapSources.source(flows, f, asOf, words));
        }
        List<FlowScript.SqlStatement> statements = new ArrayList<>();
        for (FlowScript.Item item : script.items()) {
            if (item instanceof FlowScript.SqlStatement sql && BootstrapSources.declares(sql)) {
                statements.add(sql);
            }
        }
        String uri = BootstrapSources.savepointUri(savepoint, words);
        int keyGroups =
                maxParallelism != null
                        ? maxParallelism
                        : planning.getConfiguration()
                                .getOptional(PipelineOptions.MAX_PARALLELISM)
                                .filter(n -> n > 0)
                                .orElse(BootstrapSources.DEFAULT_MAX_PARALLELISM);
        Map<String, long[]> loaded =
                Bootstrap.write(environments.get(), statements, sources, uri, keyGroups);
        List<String> lines = new ArrayList<>();
        for (Bootstrap.Source s : sources) {
            long[] n = loaded.get(s.flow().flow().name());
            lines.add(
                    "flow "
                            + s.flow().flow().name()
                            + ": "
                            + n[0]
                            + " keys, "
                            + n[1]
                            + " rows of "
                            + s.table()
                            + " loaded");
        }
        lines.add(
                "savepoint "
                        + savepoint
                        + " (max parallelism "
                        + keyGroups
                        + "); start the flow file from it: "
                        + runAgain);
        return lines;
    }
}
