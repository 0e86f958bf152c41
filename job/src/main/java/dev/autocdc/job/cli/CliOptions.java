package dev.autocdc.job.cli;

import dev.autocdc.job.flow.FlowFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.MetricOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.StateRecoveryOptions;

/** The command line's options, parsed and checked before anything runs. */
final class CliOptions {
    static final String USAGE =
            String.join(
                    "\n",
                    "usage: autocdc run --flow FILE.sql [--materialize OUT.jsonl]"
                            + " [--dead-letters FILE.jsonl] [--parallelism N]",
                    "                   [--state-backend rocksdb|hashmap] [--checkpoint-dir DIR]"
                            + " [--from-savepoint DIR] [-Dkey=value ...]",
                    "                   [--available-now --savepoint-dir DIR]   (read Kafka up to"
                        + " its ends at the start, stop with a savepoint; the next run resumes)",
                    "                   [--metrics-port PORT] [--log-level"
                            + " error|warn|info|debug|trace]",
                    "       autocdc validate --flow FILE.sql [-Dkey=value ...]",
                    "       autocdc sql --flow FILE.sql [-Dkey=value ...]   (Flink SQL: SELECT"
                            + " prints a table)",
                    "       autocdc rebuild --flow FILE.sql --suffix NAME [--out FILE.sql]",
                    "       autocdc bootstrap --flow FILE.sql --from [FLOW=]TABLE ... --savepoint"
                            + " DIR [--as-of SQL] [--max-parallelism N]",
                    "       autocdc demo [--target kafka|paimon] [--source json|postgres]",
                    "       autocdc --help | --version");

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

    static CliOptions parse(String[] args) {
        if (args.length == 0) {
            throw new IllegalArgumentException("no command");
        }
        CliOptions o = new CliOptions();
        o.command = args[0];
        if (!List.of("run", "validate", "sql", "demo", "bootstrap", "rebuild")
                .contains(o.command)) {
            throw new IllegalArgumentException("unknown command " + o.command);
        }
        for (int i = 1; i < args.length; i++) {
            i = o.option(args, i);
        }
        o.checkCommand();
        // checked before the job runs, not after it has read every event
        writableFile("--materialize", o.materialize);
        writableFile("--dead-letters", o.deadLetters);
        return o;
    }

    /**
     * Reads the option at {@code args[i]}, with its value if it takes one.
     *
     * @return the index of the option's last argument
     */
    private int option(String[] args, int i) {
        String a = args[i];
        switch (a) {
            case "--flow" -> flow = value(args, ++i, a);
            case "--materialize" -> materialize = Path.of(value(args, ++i, a));
            case "--dead-letters" -> deadLetters = Path.of(value(args, ++i, a));
            case "--parallelism" ->
                    parallelism = number(value(args, ++i, a), "--parallelism needs a number");
            case "--state-backend" -> {
                stateBackend = value(args, ++i, a);
                if (!stateBackend.equals("rocksdb") && !stateBackend.equals("hashmap")) {
                    throw new IllegalArgumentException("--state-backend is rocksdb or hashmap");
                }
            }
            case "--checkpoint-dir" -> checkpointDir = value(args, ++i, a);
            case "--from" -> from.add(value(args, ++i, a));
            case "--as-of" -> asOf = value(args, ++i, a);
            case "--suffix" -> suffix = value(args, ++i, a);
            case "--out" -> out = Path.of(value(args, ++i, a));
            case "--savepoint" -> savepoint = value(args, ++i, a);
            case "--from-savepoint" -> fromSavepoint = value(args, ++i, a);
            case "--available-now" -> availableNow = true;
            case "--savepoint-dir" -> savepointDir = value(args, ++i, a);
            case "--max-parallelism" ->
                    maxParallelism =
                            number(value(args, ++i, a), "--max-parallelism needs a number");
            case "--target" -> {
                demoTarget = value(args, ++i, a);
                if (!command.equals("demo") || !List.of("kafka", "paimon").contains(demoTarget)) {
                    throw new IllegalArgumentException(
                            "--target is for demo, and is kafka (the default) or paimon");
                }
            }
            case "--source" -> {
                demoSource = value(args, ++i, a);
                if (!command.equals("demo") || !List.of("json", "postgres").contains(demoSource)) {
                    throw new IllegalArgumentException(
                            "--source is for demo, and is json (the default) or postgres");
                }
            }
            case "--metrics-port" -> {
                metricsPort = number(value(args, ++i, a), "--metrics-port needs a port number");
                if (metricsPort < 1 || metricsPort > 65535) {
                    throw new IllegalArgumentException(
                            "--metrics-port needs a port number (1 to 65535)");
                }
            }
            case "--log-level" -> {
                logLevel = value(args, ++i, a).toUpperCase(java.util.Locale.ROOT);
                if (!LOG_LEVELS.contains(logLevel)) {
                    throw new IllegalArgumentException(
                            "--log-level is one of "
                                    + String.join(", ", LOG_LEVELS)
                                            .toLowerCase(java.util.Locale.ROOT));
                }
            }
            default -> {
                if (a.startsWith("-D") && a.contains("=")) {
                    properties.put(a.substring(2, a.indexOf('=')), a.substring(a.indexOf('=') + 1));
                } else {
                    throw new IllegalArgumentException("unknown option " + a);
                }
            }
        }
        return i;
    }

    /** Checks that the command has the options it needs, and only options it takes. */
    private void checkCommand() {
        if (!command.equals("demo")) {
            if (flow == null) {
                throw new IllegalArgumentException(command + " needs --flow FILE.sql");
            }
            FlowFile.check(flow);
        }
        if (command.equals("bootstrap") && (from.isEmpty() || savepoint == null)) {
            throw new IllegalArgumentException(
                    "bootstrap needs --from TABLE (the stored history) and --savepoint DIR (where"
                            + " the flow's state is written)");
        }
        if (!command.equals("bootstrap")
                && (!from.isEmpty()
                        || asOf != null
                        || savepoint != null
                        || maxParallelism != null)) {
            throw new IllegalArgumentException(
                    "--from, --as-of, --savepoint and --max-parallelism are for bootstrap");
        }
        if (command.equals("rebuild") && (suffix == null || !suffix.matches("[A-Za-z0-9_]+"))) {
            throw new IllegalArgumentException(
                    "rebuild needs --suffix NAME (letters, digits, _), say --suffix v2: the rebuilt"
                            + " flows and targets are named <name>_v2");
        }
        if ((suffix != null || out != null) && !command.equals("rebuild")) {
            throw new IllegalArgumentException("--suffix and --out are for rebuild");
        }
        if (command.equals("sql")
                && (materialize != null || deadLetters != null || checkpointDir != null)) {
            throw new IllegalArgumentException(
                    "sql takes --flow FILE.sql, --parallelism, --log-level and -Dkey=value");
        }
        if (fromSavepoint != null && !command.equals("run")) {
            throw new IllegalArgumentException("--from-savepoint is for run");
        }
        if ((availableNow || savepointDir != null) && !command.equals("run")) {
            throw new IllegalArgumentException("--available-now and --savepoint-dir are for run");
        }
        if (availableNow != (savepointDir != null)) {
            throw new IllegalArgumentException(
                    "run --available-now needs --savepoint-dir DIR (each run's savepoint goes"
                            + " there, and the next run starts from the newest), and"
                            + " --savepoint-dir is for --available-now");
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

    /**
     * An option's value as a number, else {@code problem} as an {@link IllegalArgumentException}.
     */
    private static int number(String value, String problem) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(problem);
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

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
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
