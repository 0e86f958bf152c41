package dev.autocdc.job.cli;

import dev.autocdc.job.flow.FlowFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;

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
    final Map<String, String> properties = new LinkedHashMap<>();

    static CliOptions parse(String[] args) {
        if (args.length == 0) {
            throw new IllegalArgumentException("no command");
        }
        CliOptions o = new CliOptions();
        o.command = args[0];
        if (!List.of("run", "validate", "demo").contains(o.command)) {
            throw new IllegalArgumentException("unknown command " + o.command);
        }
        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--flow" -> o.flow = value(args, ++i, a);
                case "--materialize" -> o.materialize = Path.of(value(args, ++i, a));
                case "--dead-letters" -> o.deadLetters = Path.of(value(args, ++i, a));
                case "--parallelism" -> {
                    try {
                        o.parallelism = Integer.parseInt(value(args, ++i, a));
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("--parallelism needs a number");
                    }
                }
                case "--state-backend" -> {
                    o.stateBackend = value(args, ++i, a);
                    if (!o.stateBackend.equals("rocksdb") && !o.stateBackend.equals("hashmap")) {
                        throw new IllegalArgumentException("--state-backend is rocksdb or hashmap");
                    }
                }
                case "--checkpoint-dir" -> o.checkpointDir = value(args, ++i, a);
                default -> {
                    if (a.startsWith("-D") && a.contains("=")) {
                        o.properties.put(
                                a.substring(2, a.indexOf('=')), a.substring(a.indexOf('=') + 1));
                    } else {
                        throw new IllegalArgumentException("unknown option " + a);
                    }
                }
            }
        }
        if (!o.command.equals("demo")) {
            if (o.flow == null) {
                throw new IllegalArgumentException(o.command + " needs --flow FILE.sql");
            }
            FlowFile.check(o.flow);
        }
        // checked before the job runs, not after it has read every event
        writableFile("--materialize", o.materialize);
        writableFile("--dead-letters", o.deadLetters);
        return o;
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
     * The Flink configuration the flags and {@code -D} options ask for, and nothing else: a
     * cluster's own configuration decides the rest. A local run defaults to RocksDB, the state
     * backend production runs use.
     */
    Configuration configuration(boolean local) {
        Configuration conf = new Configuration();
        if (stateBackend != null || local) {
            conf.setString("state.backend.type", stateBackend == null ? "rocksdb" : stateBackend);
        }
        if (checkpointDir != null) {
            conf.setString("execution.checkpointing.dir", checkpointDir);
            conf.setString("execution.checkpointing.interval", "10 s");
        }
        if (parallelism != null) {
            conf.setString("parallelism.default", String.valueOf(parallelism));
        }
        properties.forEach(conf::setString);
        return conf;
    }
}
