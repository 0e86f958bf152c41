package dev.autocdc.job.cli;

import dev.autocdc.job.flow.FlowScript;
import dev.autocdc.job.ops.Bootstrap;
import dev.autocdc.job.ops.BootstrapSources;
import dev.autocdc.job.ops.Rebuild;
import dev.autocdc.job.plan.FlowPlanner;
import dev.autocdc.job.plan.PlannedFlow;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

/**
 * The command line's day-two commands ({@code bootstrap}, {@code rebuild}; docs/operations.md):
 * each plans the flow file as {@link AutoCdcCli} does and hands the work to {@link Bootstrap} or
 * {@link Rebuild}, saying on the console what it did and what to run next.
 */
final class OperationCommands {
    /** Reads a flow file as the CLI does ({@code ${env:...}} resolved, secrets redacted). */
    interface ScriptLoader {
        FlowScript load(CliOptions options) throws IOException;
    }

    private final PrintStream out;
    private final PrintStream err;
    private final boolean local;
    private final ScriptLoader loader;

    OperationCommands(PrintStream out, PrintStream err, boolean local, ScriptLoader loader) {
        this.out = out;
        this.err = err;
        this.local = local;
        this.loader = loader;
    }

    /**
     * Writes a savepoint of each named flow's state from its stored history ({@link Bootstrap});
     * the other flows of the file start empty.
     */
    int bootstrap(CliOptions options) throws Exception {
        FlowScript script = loader.load(options);
        Configuration conf = options.configuration(local);
        // the flows' engines are planned in an environment of their own: nothing of theirs runs
        StreamTableEnvironment planning =
                StreamTableEnvironment.create(
                        StreamExecutionEnvironment.getExecutionEnvironment(conf));
        List<PlannedFlow> flows = new FlowPlanner(planning, false).plan(script);
        List<Bootstrap.Source> sources = new ArrayList<>();
        for (String from : options.from) {
            sources.add(BootstrapSources.source(flows, from, options.asOf));
        }
        List<FlowScript.SqlStatement> statements = new ArrayList<>();
        for (FlowScript.Item item : script.items()) {
            if (item instanceof FlowScript.SqlStatement sql && BootstrapSources.declares(sql)) {
                statements.add(sql);
            }
        }
        String savepoint = BootstrapSources.savepointUri(options.savepoint);
        int maxParallelism =
                options.maxParallelism != null
                        ? options.maxParallelism
                        : conf.getOptional(PipelineOptions.MAX_PARALLELISM)
                                .filter(n -> n > 0)
                                .orElse(BootstrapSources.DEFAULT_MAX_PARALLELISM);
        Map<String, long[]> loaded =
                Bootstrap.write(
                        StreamExecutionEnvironment.getExecutionEnvironment(conf),
                        statements,
                        sources,
                        savepoint,
                        maxParallelism);
        for (Bootstrap.Source s : sources) {
            long[] n = loaded.get(s.flow().flow().name());
            out.println(
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
        out.println(
                "savepoint "
                        + options.savepoint
                        + " (max parallelism "
                        + maxParallelism
                        + "); start the flow file from it: autocdc run --flow "
                        + options.flow
                        + " --from-savepoint "
                        + options.savepoint
                        + " (on a cluster: flink run -s "
                        + savepoint
                        + " ...)");
        return 0;
    }

    /**
     * Writes the flow file of a rebuild ({@link Rebuild}), checks that it plans, and says how to
     * run it.
     */
    int rebuild(CliOptions options) throws Exception {
        Path source = Path.of(options.flow);
        Path target =
                options.out != null
                        ? options.out
                        : source.resolveSibling(
                                source.getFileName().toString().replaceFirst("(\\.sql)?$", "")
                                        + "_"
                                        + options.suffix
                                        + ".sql");
        if (Files.exists(target)) {
            err.println("autocdc: " + target + " exists; name another file with --out");
            return 1;
        }
        String rebuilt = Rebuild.of(Files.readString(source), options.suffix);
        Files.writeString(target, rebuilt);
        CliOptions check = CliOptions.parse(new String[] {"validate", "--flow", target.toString()});
        StreamTableEnvironment tEnv =
                StreamTableEnvironment.create(
                        StreamExecutionEnvironment.getExecutionEnvironment(
                                check.configuration(local)));
        List<PlannedFlow> flows = new FlowPlanner(tEnv, false).plan(loader.load(check));
        out.println("wrote " + target);
        for (PlannedFlow f : flows) {
            out.println(
                    "  flow "
                            + f.flow().name()
                            + " into "
                            + f.flow().target()
                            + ", from "
                            + f.flow().source()
                            + " from its start");
        }
        out.println(
                "run it as a new job, without a savepoint (autocdc run --flow "
                        + target
                        + "); once it has caught up, move readers to the new targets and stop"
                        + " the old job (docs/operations.md)");
        return 0;
    }
}
