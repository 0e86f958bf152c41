package dev.autocdc.job.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The command line's grammar, on picocli: a class per command with its options and their help, so
 * that {@code autocdc <command> --help} names that command's options. What they parse goes into
 * {@link CliOptions}, which checks the rules across options.
 */
@Command(
        name = "autocdc",
        mixinStandardHelpOptions = true,
        versionProvider = CliCommands.Version.class,
        description = "AUTO CDC flows on Flink: SCD type 1, SCD type 2 and bitemporal histories.",
        subcommands = {
            CliCommands.Run.class,
            CliCommands.Validate.class,
            CliCommands.Sql.class,
            CliCommands.Demo.class,
            CliCommands.Bootstrap.class,
            CliCommands.Rebuild.class
        })
final class CliCommands {
    /** A command's options, copied into the options the commands read. */
    interface Parsed {
        void into(CliOptions o);
    }

    /** The flow file, and settings: every command but demo. */
    static final class FlowFile {
        @Option(
                names = "--flow",
                required = true,
                paramLabel = "FILE.sql",
                description = "the flow file: a path, or a Flink file-system URI (s3://...)")
        String flow;

        @Option(
                names = "-D",
                paramLabel = "key=value",
                description =
                        "a setting: Flink's, or a flow's (autocdc.<flow>.<setting>); repeatable")
        Map<String, String> properties = new LinkedHashMap<>();

        void into(CliOptions o) {
            o.flow = flow;
            o.properties.putAll(properties);
        }
    }

    /** How a job runs: run, sql and validate. */
    static final class Job {
        @Option(names = "--parallelism", paramLabel = "N", description = "the job's parallelism")
        Integer parallelism;

        @Mixin Logging logging = new Logging();

        void into(CliOptions o) {
            o.parallelism = parallelism;
            logging.into(o);
        }
    }

    /** A local run's log level: every command that runs Flink. */
    static final class Logging {
        @Option(
                names = "--log-level",
                paramLabel = "LEVEL",
                description = "a local run's log level: error, warn, info, debug or trace")
        String logLevel;

        void into(CliOptions o) {
            o.logLevel = logLevel;
        }
    }

    @Command(
            name = "run",
            mixinStandardHelpOptions = true,
            description = "Runs the flows of a flow file: locally, or as the program of a cluster.")
    static final class Run implements Parsed {
        @Mixin FlowFile file = new FlowFile();
        @Mixin Job job = new Job();

        @Option(
                names = "--materialize",
                paramLabel = "OUT.jsonl",
                description = "keep the target and write it as JSON lines (bounded sources)")
        Path materialize;

        @Option(
                names = "--dead-letters",
                paramLabel = "FILE.jsonl",
                description = "write dead letters and late events without a table to this file")
        Path deadLetters;

        @Option(
                names = "--state-backend",
                paramLabel = "rocksdb|hashmap",
                description = "the state backend (a local run: rocksdb)")
        String stateBackend;

        @Option(
                names = "--checkpoint-dir",
                paramLabel = "DIR",
                description = "checkpoints every 10 s into DIR")
        String checkpointDir;

        @Option(
                names = "--from-savepoint",
                paramLabel = "DIR",
                description = "start from this savepoint")
        String fromSavepoint;

        @Option(
                names = "--metrics-port",
                paramLabel = "PORT",
                description = "a local run's Prometheus endpoint")
        Integer metricsPort;

        @ArgGroup(exclusive = false)
        Triggered triggered;

        /** run --available-now --savepoint-dir DIR. */
        static final class Triggered {
            @Option(
                    names = "--available-now",
                    required = true,
                    description =
                            "read the Kafka sources up to their ends at the start, then stop with"
                                    + " a savepoint")
            boolean availableNow;

            @Option(
                    names = "--savepoint-dir",
                    required = true,
                    paramLabel = "DIR",
                    description =
                            "where each triggered run's savepoint goes; the next starts from"
                                    + " the newest")
            String savepointDir;
        }

        @Override
        public void into(CliOptions o) {
            file.into(o);
            job.into(o);
            o.materialize = materialize;
            o.deadLetters = deadLetters;
            o.stateBackend = stateBackend;
            o.checkpointDir = checkpointDir;
            o.fromSavepoint = fromSavepoint;
            o.metricsPort = metricsPort;
            if (triggered != null) {
                o.availableNow = triggered.availableNow;
                o.savepointDir = triggered.savepointDir;
            }
        }
    }

    @Command(
            name = "validate",
            mixinStandardHelpOptions = true,
            description =
                    "Plans the flows without running them: each flow's source and target schema,"
                            + " primary key, changelog mode and the engine's input query.")
    static final class Validate implements Parsed {
        @Mixin FlowFile file = new FlowFile();
        @Mixin Job job = new Job();

        @Override
        public void into(CliOptions o) {
            file.into(o);
            job.into(o);
        }
    }

    @Command(
            name = "sql",
            mixinStandardHelpOptions = true,
            description = "Runs a Flink SQL script; a SELECT prints a table.")
    static final class Sql implements Parsed {
        @Mixin FlowFile file = new FlowFile();
        @Mixin Job job = new Job();

        @Override
        public void into(CliOptions o) {
            file.into(o);
            job.into(o);
        }
    }

    @Command(
            name = "demo",
            mixinStandardHelpOptions = true,
            description =
                    "The reference walkthroughs on an in-JVM Kafka broker and a local Flink, each"
                            + " table checked against the reference.")
    static final class Demo implements Parsed {
        @Mixin Logging logging = new Logging();

        @Option(
                names = "--target",
                paramLabel = "kafka|paimon",
                defaultValue = "kafka",
                description = "upsert-kafka topics (default), or a Paimon table")
        String target;

        @Option(
                names = "--source",
                paramLabel = "json|postgres",
                defaultValue = "json",
                description =
                        "change events the demo writes (default), or a PostgreSQL database"
                                + " captured by Debezium")
        String source;

        @Override
        public void into(CliOptions o) {
            logging.into(o);
            o.demoTarget = target;
            o.demoSource = source;
        }
    }

    @Command(
            name = "bootstrap",
            mixinStandardHelpOptions = true,
            description =
                    "Writes a savepoint from a stored history, for the flows to start from"
                            + " (docs/operations.md).")
    static final class Bootstrap implements Parsed {
        @Mixin FlowFile file = new FlowFile();

        @Option(
                names = "--from",
                required = true,
                paramLabel = "[FLOW=]TABLE",
                description = "the stored history a flow starts from; repeatable")
        List<String> from = new ArrayList<>();

        @Option(
                names = "--savepoint",
                required = true,
                paramLabel = "DIR",
                description = "where the savepoint is written")
        String savepoint;

        @Option(
                names = "--as-of",
                paramLabel = "SQL",
                description = "an SCD type 1 table's sequence, an SQL expression")
        String asOf;

        @Option(
                names = "--max-parallelism",
                paramLabel = "N",
                description = "the savepoint's key groups (the jobs' pipeline.max-parallelism)")
        Integer maxParallelism;

        @Override
        public void into(CliOptions o) {
            file.into(o);
            o.from.addAll(from);
            o.savepoint = savepoint;
            o.asOf = asOf;
            o.maxParallelism = maxParallelism;
        }
    }

    @Command(
            name = "rebuild",
            mixinStandardHelpOptions = true,
            description =
                    "Writes the flow file of a rebuild: the flows and targets suffixed, to run"
                            + " beside the old ones (docs/operations.md).")
    static final class Rebuild implements Parsed {
        @Mixin FlowFile file = new FlowFile();

        @Option(
                names = "--suffix",
                required = true,
                paramLabel = "NAME",
                description = "what the rebuilt flows and targets are suffixed with (v2)")
        String suffix;

        @Option(
                names = "--out",
                paramLabel = "FILE.sql",
                description = "the rebuilt flow file (default: beside the flow file)")
        Path out;

        @Override
        public void into(CliOptions o) {
            file.into(o);
            o.suffix = suffix;
            o.out = out;
        }
    }

    /** {@code --version}: the build's version. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"autocdc " + AutoCdcCli.version()};
        }
    }
}
