package dev.autocdc.job.cli;

import dev.autocdc.job.flow.FlowFile;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.MetricOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import picocli.CommandLine;

/** The command line's options, parsed and checked before anything runs. */
final class CliOptions {
    String command;

    /** A path or a Flink file-system URI ({@link FlowFile}). */
    String flow;

    Path materialize;
    Path deadLetters;
    Integer parallelism;
    String stateBackend;
    String checkpointDir;

    /** The demo's target: {@code kafka} (upsert-kafka topics) or {@code paimon} (a local table). */
    String demoTarget = "kafka";

    /**
     * The demo's source: {@code json} (change events written to Kafka by the demo) or {@code
     * postgres} (a PostgreSQL database captured by Debezium, into a Paimon table).
     */
    String demoSource = "json";

    Integer metricsPort;
    String logLevel;

    /** bootstrap: {@code [FLOW=]TABLE}, the stored history each flow starts from. */
    final List<String> from = new ArrayList<>();

    /** bootstrap: an SCD1 table's sequence, an SQL expression. */
    String asOf;

    /** bootstrap: the savepoint written (a path or a Flink file-system URI). */
    String savepoint;

    /** run: the savepoint the job starts from (execution.state-recovery.path). */
    String fromSavepoint;

    /**
     * run: read the Kafka sources up to their ends at the start, then stop with a savepoint into
     * {@link #savepointDir} ({@link AvailableNow}).
     */
    boolean availableNow;

    /**
     * run --available-now: where each run's savepoint goes; the next run starts from the newest.
     */
    String savepointDir;

    /** rebuild: what the rebuilt flows and targets are suffixed with. */
    String suffix;

    /** rebuild: the rebuilt flow file (default: beside the flow file, suffixed). */
    Path out;

    /** bootstrap: the savepoint's key groups (pipeline.max-parallelism of the jobs it starts). */
    Integer maxParallelism;

    final Map<String, String> properties = new LinkedHashMap<>();

    /** The levels of {@code --log-level}, as log4j names them. */
    static final List<String> LOG_LEVELS = List.of("ERROR", "WARN", "INFO", "DEBUG", "TRACE");

    /** The Prometheus reporter's name in {@code metrics.reporter.<name>.*}, for --metrics-port. */
    static final String PROMETHEUS_REPORTER = "prom";

    /** The Prometheus reporter's factory (flink-metrics-prometheus, on a local run's classpath). */
    static final String PROMETHEUS_FACTORY =
            "org.apache.flink.metrics.prometheus.PrometheusReporterFactory";

    /**
     * The Prometheus reporter's own setting for its HTTP port, under {@code metrics.reporter.prom.}
     * (flink-metrics-prometheus names it, but has no ConfigOption for it).
     */
    static final ConfigOption<Integer> PROMETHEUS_PORT =
            ConfigOptions.key("port")
                    .intType()
                    .noDefaultValue()
                    .withDescription("The port of the Prometheus reporter's HTTP endpoint.");

    /**
     * The arguments without a leading {@code --host ADDRESS}. The Flink Kubernetes Operator (up to
     * release 1.15) starts a standalone application's JobManager with {@code --host <pod IP>} when
     * high availability is on; Flink 2's entry point no longer knows that option and hands it to
     * the program, before the command. Only the cluster's entry point ({@code main}) drops it.
     */
    static String[] withoutOperatorHost(String[] args) {
        return args.length >= 2 && args[0].equals("--host")
                ? Arrays.copyOfRange(args, 2, args.length)
                : args;
    }

    /**
     * The command line parsed by its grammar ({@link CliCommands}), then checked across options.
     *
     * @return null when the line asks for help or the version, which {@code help} has printed
     * @throws IllegalArgumentException the line's fault, in words
     */
    static CliOptions parse(String[] args, PrintWriter help) {
        CommandLine line = grammar();
        line.setOut(help);
        CommandLine.ParseResult parsed;
        try {
            parsed = line.parseArgs(args);
        } catch (CommandLine.ParameterException e) {
            throw new IllegalArgumentException(e.getMessage());
        }
        if (CommandLine.printHelpIfRequested(parsed)) {
            help.flush();
            return null;
        }
        if (!parsed.hasSubcommand()) {
            throw new IllegalArgumentException("no command");
        }
        CommandLine.ParseResult sub = parsed.subcommand();
        CliOptions o = new CliOptions();
        o.command = sub.commandSpec().name();
        ((CliCommands.Parsed) sub.commandSpec().userObject()).into(o);
        o.checkCommand();
        // checked before the job runs, not after it has read every event
        writableFile("--materialize", o.materialize);
        writableFile("--dead-letters", o.deadLetters);
        return o;
    }

    /** The grammar; an argument that starts with {@code @} is itself, not a file to read. */
    private static CommandLine grammar() {
        return new CommandLine(new CliCommands()).setExpandAtFiles(false);
    }

    /** Parses a command line that asks for neither help nor the version. */
    static CliOptions parse(String[] args) {
        return parse(args, new PrintWriter(Writer.nullWriter()));
    }

    /** The usage of the command a line names, else of every command. */
    static String usage(String[] args) {
        CommandLine line = grammar();
        CommandLine command = args.length == 0 ? null : line.getSubcommands().get(args[0]);
        return (command == null ? line : command).getUsageMessage();
    }

    /** Checks the values that have a range or a set of names. */
    private void checkValues() {
        if (stateBackend != null && !List.of("rocksdb", "hashmap").contains(stateBackend)) {
            throw new IllegalArgumentException("--state-backend is rocksdb or hashmap");
        }
        if (!List.of("kafka", "paimon").contains(demoTarget)) {
            throw new IllegalArgumentException("--target is kafka (the default) or paimon");
        }
        if (!List.of("json", "postgres").contains(demoSource)) {
            throw new IllegalArgumentException("--source is json (the default) or postgres");
        }
        if (metricsPort != null && (metricsPort < 1 || metricsPort > 65535)) {
            throw new IllegalArgumentException("--metrics-port needs a port number (1 to 65535)");
        }
        if (logLevel != null) {
            logLevel = logLevel.toUpperCase(Locale.ROOT);
            if (!LOG_LEVELS.contains(logLevel)) {
                throw new IllegalArgumentException(
                        "--log-level is one of "
                                + String.join(", ", LOG_LEVELS).toLowerCase(Locale.ROOT));
            }
        }
    }

    /**
     * Checks the rules across options (the grammar has refused an option the command does not take
     * and a missing required one).
     */
    private void checkCommand() {
        checkValues();
        if (flow != null) {
            FlowFile.check(flow);
        }
        if (command.equals("rebuild") && !suffix.matches("[A-Za-z0-9_]+")) {
            throw new IllegalArgumentException(
                    "rebuild needs --suffix NAME (letters, digits, _), say --suffix v2: the rebuilt"
                            + " flows and targets are named <name>_v2");
        }
        if (availableNow && materialize != null) {
            throw new IllegalArgumentException(
                    "--available-now keeps the flow's state in a savepoint for the next run;"
                            + " --materialize builds a target from one run alone: write to a target"
                            + " table instead");
        }
        if (fromSavepoint != null && materialize != null) {
            throw new IllegalArgumentException(
                    "--materialize builds a target from this run's changelog alone, without the"
                            + " rows the savepoint's state stands for; a run from a savepoint"
                            + " writes into the target table that holds them");
        }
    }

    private static void writableFile(String option, Path file) {
        if (file == null) {
            return;
        }
        Path parent = file.toAbsolutePath().getParent();
        if (Files.isDirectory(file)) {
            throw new IllegalArgumentException(
                    option
                            + " "
                            + file
                            + " is a directory; name a file, for example "
                            + file.resolve("target.jsonl"));
        }
        if (parent == null || !Files.isDirectory(parent)) {
            throw new IllegalArgumentException(
                    option
                            + " "
                            + file
                            + ": the directory "
                            + parent
                            + " does not exist; create it first");
        }
        if (!Files.isWritable(parent)) {
            throw new IllegalArgumentException(option + " " + file + ": cannot write in " + parent);
        }
    }

    /**
     * Refuses, on a cluster, the switches of a local run: a cluster's metric reporters and logging
     * are its own configuration's.
     *
     * @throws IllegalArgumentException naming the switch and where the cluster sets it
     */
    void checkFor(boolean local) {
        if (local) {
            return;
        }
        if (metricsPort != null) {
            throw new IllegalArgumentException(
                    "--metrics-port is for local runs; a cluster's metric reporters are set in its"
                            + " configuration (metrics.reporter.prom.*, see docs/deploy.md)");
        }
        if (logLevel != null) {
            throw new IllegalArgumentException(
                    "--log-level is for local runs; a cluster's logging is set in its log4j"
                            + " configuration");
        }
    }

    /**
     * The Flink configuration the flags and {@code -D} options ask for, and nothing else: a
     * cluster's own configuration decides the rest. A local run defaults to RocksDB, the state
     * backend production runs use.
     */
    Configuration configuration(boolean local) {
        Configuration conf = new Configuration();
        if (stateBackend != null || local) {
            conf.set(
                    StateBackendOptions.STATE_BACKEND,
                    stateBackend == null ? "rocksdb" : stateBackend);
        }
        if (checkpointDir != null) {
            conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpointDir);
            conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofSeconds(10));
        } else if (local && availableNow && savepointDir != null) {
            // a triggered run checkpoints to commit its offsets; kept in the JobManager's memory
            // (Flink's default without a directory) a state over 5 MB fails every checkpoint
            String base =
                    new org.apache.flink.core.fs.Path(savepointDir).toUri().getScheme() != null
                            ? savepointDir
                            : Path.of(savepointDir).toAbsolutePath().toUri().toString();
            conf.set(
                    CheckpointingOptions.CHECKPOINTS_DIRECTORY,
                    base.replaceAll("/+$", "") + "/checkpoints");
        }
        if (parallelism != null) {
            conf.set(CoreOptions.DEFAULT_PARALLELISM, parallelism);
        }
        if (fromSavepoint != null) {
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, fromSavepoint);
        }
        if (metricsPort != null && local) {
            Configuration prom = MetricOptions.forReporter(conf, PROMETHEUS_REPORTER);
            prom.set(MetricOptions.REPORTER_FACTORY_CLASS, PROMETHEUS_FACTORY);
            prom.set(PROMETHEUS_PORT, metricsPort);
        }
        properties.forEach(conf::setString);
        return conf;
    }
}
