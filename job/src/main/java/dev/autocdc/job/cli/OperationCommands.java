package dev.autocdc.job.cli;

import dev.autocdc.job.flow.FlowScript;
import dev.autocdc.job.ops.Bootstrap;
import dev.autocdc.job.ops.BootstrapRun;
import dev.autocdc.job.ops.BootstrapSources;
import dev.autocdc.job.ops.BootstrapWords;
import dev.autocdc.job.ops.Rebuild;
import dev.autocdc.job.plan.FlowPlanner;
import dev.autocdc.job.plan.PlannedFlow;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.configuration.Configuration;
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
        Configuration conf = options.configuration(local);
        String savepoint = BootstrapSources.savepointUri(options.savepoint, BootstrapWords.CLI);
        List<String> lines =
                BootstrapRun.run(
                        () -> StreamExecutionEnvironment.getExecutionEnvironment(conf),
                        loader.load(options),
                        options.from,
                        options.asOf,
                        options.savepoint,
                        options.maxParallelism,
                        BootstrapWords.CLI,
                        "autocdc run --flow "
                                + options.flow
                                + " --from-savepoint "
                                + options.savepoint
                                + " (on a cluster: flink run -s "
                                + savepoint
                                + " ...)");
        lines.forEach(out::println);
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
