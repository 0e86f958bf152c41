package dev.autocdc.job.cli;

import dev.autocdc.job.flow.EnvReferences;
import dev.autocdc.job.flow.FlowFile;
import dev.autocdc.job.flow.FlowScript;
import dev.autocdc.job.flow.FlowSyntaxException;
import dev.autocdc.job.plan.FlowJob;
import dev.autocdc.job.plan.FlowPlanner;
import dev.autocdc.job.plan.KafkaBounds;
import dev.autocdc.job.plan.LetterCounts;
import dev.autocdc.job.plan.PlannedFlow;
import dev.autocdc.job.plan.TargetTable;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.Writer;
import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.CloseableIterator;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.config.Configurator;

/**
 * The command line: {@code run}, {@code validate} and {@code demo}. Exit codes: 0 success, 1 the
 * flow or the job failed (message on stderr), 2 wrong usage.
 *
 * <p>Two ways in. {@link #main} is the cluster's entry point ({@code flink run}, application mode):
 * it never exits the JVM, which in application mode is the JobManager's, but throws with the
 * message, so the job fails; and it leaves the cluster's configuration alone (state backend,
 * checkpointing, parallelism are set only by their flags). {@link LocalLauncher} is {@code
 * deploy/autocdc}'s: an embedded Flink with local defaults (RocksDB, network memory sized for
 * {@code --parallelism}) and the exit code as the process's.
 */
public final class AutoCdcCli {
    /**
     * How often a local run prints its progress line ({@link ProgressReporter}); {@code
     * -Dmetrics.reporter.autocdc_progress.interval=...} changes it.
     */
    static final Duration PROGRESS_INTERVAL = Duration.ofSeconds(5);

    private final RedactingPrintStream out;
    private final RedactingPrintStream err;
    private final boolean local;
    private Map<String, String> environment = System.getenv();

    /** The CLI on an embedded Flink with local defaults (see {@link LocalLauncher}). */
    public AutoCdcCli(PrintStream out, PrintStream err) {
        this(out, err, true);
    }

    /**
     * @param local whether the run is on the embedded Flink of this JVM, which takes the local
     *     defaults; else the cluster's configuration decides what no flag sets
     */
    public AutoCdcCli(PrintStream out, PrintStream err, boolean local) {
        this.out = new RedactingPrintStream(out);
        this.err = new RedactingPrintStream(err);
        this.local = local;
    }

    /** The environment that {@code ${env:NAME}} in a flow file reads (the process's by default). */
    public AutoCdcCli withEnvironment(Map<String, String> environment) {
        this.environment = Map.copyOf(environment);
        return this;
    }

    /**
     * The flow file, read from its location, with its {@code ${env:NAME}} references resolved; from
     * here on the output shows the references, not their values.
     */
    private FlowScript load(CliOptions options) throws IOException {
        return FlowScript.parse(loadText(options));
    }

    /** The script's text, its {@code ${env:NAME}} references resolved and redacted on output. */
    private String loadText(CliOptions options) throws IOException {
        EnvReferences resolved = EnvReferences.resolve(FlowFile.read(options.flow), environment);
        out.redactWith(resolved::redact);
        err.redactWith(resolved::redact);
        return resolved.text();
    }

    /**
     * The cluster's entry point: runs the command and, when it fails, throws with its message
     * instead of exiting the JVM.
     *
     * @throws CommandFailedException the command's exit code was not 0
     */
    public static void main(String[] args) {
        ByteArrayOutputStream said = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(new TeeOutputStream(System.err, said), true);
        int code = new AutoCdcCli(System.out, err, false).run(CliOptions.withoutOperatorHost(args));
        if (code != 0) {
            throw new CommandFailedException(code, said.toString(StandardCharsets.UTF_8).strip());
        }
    }

    /** A command that failed, with what it printed on stderr. */
    public static final class CommandFailedException extends RuntimeException {
        private final int exitCode;

        CommandFailedException(int exitCode, String message) {
            super(message.isEmpty() ? "autocdc failed with exit code " + exitCode : message);
            this.exitCode = exitCode;
        }

        public int exitCode() {
            return exitCode;
        }
    }

    /** The build's version, from {@code autocdc-version.properties} (filtered by Maven). */
    static String version() {
        Properties p = new Properties();
        try (InputStream in = AutoCdcCli.class.getResourceAsStream("/autocdc-version.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            // no version: said below
        }
        return p.getProperty("version", "(unknown version)");
    }

    /** Runs a command; returns the exit code. */
    public int run(String[] args) {
        CliOptions options;
        try {
            options = CliOptions.parse(args, new PrintWriter(out, true));
            if (options == null) {
                return 0; // --help or --version, printed
            }
            options.checkFor(local);
        } catch (IllegalArgumentException e) {
            err.println("autocdc: " + e.getMessage());
            err.print(CliOptions.usage(args));
            return 2;
        }
        if (options.logLevel != null) {
            Configurator.setRootLevel(Level.valueOf(options.logLevel));
        }
        try {
            switch (options.command) {
                case "validate":
                    return validate(options);
                case "run":
                    return runFlows(options);
                case "sql":
                    return new SqlCommand(out, err)
                            .run(options.flow, loadText(options), options.configuration(local));
                case "demo":
                    return demo(options);
                case "bootstrap":
                    return new OperationCommands(out, err, local, this::load).bootstrap(options);
                case "rebuild":
                    return new OperationCommands(out, err, local, this::load).rebuild(options);
                default:
                    err.print(CliOptions.usage(new String[0]));
                    return 2;
            }
        } catch (FlowSyntaxException e) {
            err.println("autocdc: flow " + options.flow + ", " + e.getMessage());
            return 1;
        } catch (Exception e) {
            err.println(
                    "autocdc: " + (e.getMessage() == null ? e.toString() : ErrorMessages.root(e)));
            return 1;
        }
    }

    /** The demo needs the embedded runtime (in-JVM Kafka), which the cluster jar does not carry. */
    private int demo(CliOptions options) throws Exception {
        Class<?> demo;
        try {
            demo = Class.forName("dev.autocdc.embedded.Demo");
        } catch (ClassNotFoundException e) {
            err.println(
                    "autocdc: the demo needs the embedded runtime; run it with deploy/autocdc"
                            + " demo");
            return 1;
        }
        try {
            return (Boolean)
                            demo.getMethod("run", PrintStream.class, String.class, String.class)
                                    .invoke(null, out, options.demoTarget, options.demoSource)
                    ? 0
                    : 1;
        } catch (InvocationTargetException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    private int validate(CliOptions options) throws Exception {
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(options.configuration(local));
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        // validate creates no target: one missing from its catalog is reported, not created
        List<PlannedFlow> flows = new FlowPlanner(tEnv, false).plan(load(options));
        for (PlannedFlow f : flows) {
            FlowReport.print(out, tEnv, f);
        }
        return 0;
    }

    private int runFlows(CliOptions options) throws Exception {
        FlowScript script = load(options);
        Configuration conf = options.configuration(local);
        if (!local) {
            return runFlows(options, script, conf);
        }
        LocalNetworkMemory.size(
                conf,
                (int)
                        script.items().stream()
                                .filter(i -> i instanceof FlowScript.FlowItem)
                                .count());
        String progress = ProgressReporter.configure(conf, err, PROGRESS_INTERVAL);
        try {
            return runFlows(options, script, conf);
        } finally {
            ProgressReporter.release(progress);
        }
    }

    /**
     * Turns on {@code pipeline.object-reuse} unless the cluster's configuration or {@code -D} set
     * it: the flow job's operators keep no record past its call, so Flink need not copy each one
     * between chained operators (docs/deploy.md).
     */
    static void reuseObjectsUnlessConfigured(StreamExecutionEnvironment env) {
        if (env.getConfiguration().getOptional(PipelineOptions.OBJECT_REUSE).isEmpty()) {
            env.getConfig().enableObjectReuse();
        }
    }

    private int runFlows(CliOptions options, FlowScript script, Configuration conf)
            throws Exception {
        if (options.availableNow) {
            AvailableNow.resume(conf, options.savepointDir, err);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        reuseObjectsUnlessConfigured(env);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        FlowPlanner planner = new FlowPlanner(tEnv);
        List<PlannedFlow> flows = planner.plan(script);
        String refused = KafkaCheck.check(tEnv, flows, KafkaCheck.TIMEOUT);
        if (refused == null) {
            refused =
                    KafkaCheck.snapshotPartitions(
                            tEnv, flows, env.getParallelism(), KafkaCheck.TIMEOUT);
        }
        if (refused != null) {
            err.println("autocdc: " + refused);
            return 1;
        }
        KafkaBounds bounds =
                options.availableNow ? AvailableNow.bounds(env, tEnv, flows, err) : null;
        FlowJob job = new FlowJob(tEnv, flows, planner.inserts());
        if (options.deadLetters != null) {
            job.lettersTo(new DeadLetterFile(options.deadLetters), options.deadLetters.toString());
        }
        Map<String, DataStream<RowData>> changelogs = job.attach();
        Map<PlannedFlow, CloseableIterator<RowData>> collected = new LinkedHashMap<>();
        if (options.materialize != null) {
            String unbounded = Materializer.unboundedSource(env);
            if (unbounded != null) {
                err.println(
                        "autocdc: --materialize needs bounded sources, and "
                                + unbounded
                                + " is unbounded; bound it (for Kafka: 'scan.bounded.mode' ="
                                + " 'latest-offset') or write to a target table instead");
                return 1;
            }
            for (PlannedFlow f : flows) {
                collected.put(f, changelogs.get(f.flow().target()).collectAsync());
            }
        } else {
            for (PlannedFlow f : flows) {
                if (!f.writesTable()) {
                    changelogs
                            .get(f.flow().target())
                            .map(new PrintedRow(f.spec().targetType()))
                            .name("text of " + f.flow().target())
                            .print("target " + f.flow().target())
                            .name("print " + f.flow().target());
                }
            }
        }
        String jobName = "AUTO CDC " + FlowFile.name(options.flow);
        if (collected.isEmpty()) {
            JobExecutionResult result =
                    bounds != null
                            ? AvailableNow.run(env, jobName, bounds, options.savepointDir, err)
                            : local
                                    ? StoppableRun.await(
                                            env.executeAsync(jobName),
                                            () ->
                                                    stoppedSummary(
                                                            ProgressReporter.idOf(conf),
                                                            flows,
                                                            job),
                                            err)
                                    : env.execute(jobName);
            lastProgress(conf);
            reportLetters(result, flows, job);
            return 0;
        }
        Materializer.Result materialized = Materializer.run(env, jobName, collected);
        lastProgress(conf);
        reportLetters(materialized.job(), flows, job);
        writeMaterialized(materialized, options.materialize, flows.size());
        return 0;
    }

    /** Writes each materialized target as JSON lines, line by line, and says where. */
    private void writeMaterialized(Materializer.Result materialized, Path into, int flows)
            throws IOException {
        for (Map.Entry<PlannedFlow, TargetTable> e : materialized.tables().entrySet()) {
            TargetTable table = e.getValue();
            Path file = Materializer.file(into, e.getKey().flow().target(), flows);
            try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
                table.writeJsonLines(w); // line by line: no second copy of the table in memory
            }
            err.println(
                    "autocdc: wrote "
                            + LetterCounts.count(table.size(), "row")
                            + " of "
                            + e.getKey().flow().target()
                            + " to "
                            + file);
        }
    }

    /**
     * Says on the console how many records went to dead letters and late events, by reason, and
     * where (semantics §11). A job submitted detached has no result to read.
     */
    private void reportLetters(JobExecutionResult result, List<PlannedFlow> flows, FlowJob job) {
        if (result.isJobExecutionResult()) {
            reportLetters(result.getAllAccumulatorResults(), flows, job);
        }
    }

    /** A stopped run's summary: its progress line then, and its letters, from its metrics. */
    private void stoppedSummary(String progress, List<PlannedFlow> flows, FlowJob job) {
        printProgress(progress);
        reportLetters(ProgressReporter.counts(progress), flows, job);
    }

    /** A local run's last progress line, with its totals (events in, target rows written). */
    private void lastProgress(Configuration conf) {
        if (local) {
            printProgress(ProgressReporter.idOf(conf));
        }
    }

    private void printProgress(String progress) {
        String line = ProgressReporter.lineNow(progress);
        if (line != null) {
            err.println(line);
        }
    }

    private void reportLetters(
            Map<String, Object> accumulators, List<PlannedFlow> flows, FlowJob job) {
        List<String> names = flows.stream().map(f -> f.flow().name()).toList();
        for (String line : LetterCounts.report(accumulators, names, job.destinations())) {
            err.println("autocdc: " + line);
        }
    }
}
