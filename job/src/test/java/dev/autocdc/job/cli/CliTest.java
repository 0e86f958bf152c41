package dev.autocdc.job.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The CLI end to end on a local Flink: flows read from a filesystem JSON source, targets
 * materialized.
 */
class CliTest {
    @TempDir Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int cli(String... args) {
        return new AutoCdcCli(
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(args);
    }

    /** The references' users feed, as the repository's example ships it. */
    static Path usersFeed() {
        return Path.of("..", "examples", "users_cdf.json").toAbsolutePath().normalize();
    }

    private Path usersFlow(String storedAs) throws Exception {
        Path flow = dir.resolve("users.sql");
        Files.writeString(
                flow,
                """
                CREATE TABLE users_cdf (userId INT, name STRING, city STRING, operation STRING, sequenceNum INT)
                WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');

                CREATE OR REFRESH STREAMING TABLE users_target;

                CREATE FLOW apply_cdc AS AUTO CDC INTO users_target
                FROM STREAM(users_cdf)
                KEYS (userId)
                APPLY AS DELETE WHEN operation = "DELETE"
                SEQUENCE BY sequenceNum
                COLUMNS * EXCEPT (operation, sequenceNum)
                STORED AS %s;
                """
                        .formatted(usersFeed(), storedAs));
        return flow;
    }

    /** The users walkthrough's SCD type 2 table, as --materialize writes it. */
    private static final List<String> USERS_SCD2 =
            List.of(
                    "{\"userId\": 123, \"name\": \"Isabel\", \"city\": \"Monterrey\","
                            + " \"__START_AT\": 1, \"__END_AT\": 5}",
                    "{\"userId\": 123, \"name\": \"Isabel\", \"city\": \"Chihuahua\","
                            + " \"__START_AT\": 5, \"__END_AT\": 6}",
                    "{\"userId\": 124, \"name\": \"Raul\", \"city\": \"Oaxaca\","
                            + " \"__START_AT\": 1, \"__END_AT\": null}",
                    "{\"userId\": 125, \"name\": \"Mercedes\", \"city\": \"Tijuana\","
                            + " \"__START_AT\": 2, \"__END_AT\": 5}",
                    "{\"userId\": 125, \"name\": \"Mercedes\", \"city\": \"Mexicali\","
                            + " \"__START_AT\": 5, \"__END_AT\": 6}",
                    "{\"userId\": 125, \"name\": \"Mercedes\", \"city\": \"Guadalajara\","
                            + " \"__START_AT\": 6, \"__END_AT\": null}",
                    "{\"userId\": 126, \"name\": \"Lily\", \"city\": \"Cancun\","
                            + " \"__START_AT\": 2, \"__END_AT\": null}");

    /**
     * The users walkthrough as SCD type 2: at parallelism 2, and without the object reuse the CLI
     * runs flows with (Flink then copies each record between chained operators instead of handing
     * over the engine's one reused output row).
     */
    @ParameterizedTest
    @ValueSource(strings = {"--parallelism=2", "-Dpipeline.object-reuse=false"})
    void runMaterializesTheUsersWalkthroughAsScd2(String option) throws Exception {
        Path result = dir.resolve("users.jsonl");
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "run",
                                "--flow",
                                usersFlow("SCD TYPE 2").toString(),
                                "--materialize",
                                result.toString()));
        // --parallelism takes its value as the next argument
        args.addAll(
                List.of(option.startsWith("--") ? option.split("=", 2) : new String[] {option}));
        int code = cli(args.toArray(new String[0]));
        assertThat(code).as(err.toString()).isZero();
        assertThat(Files.readAllLines(result)).containsExactlyElementsOf(USERS_SCD2);
    }

    @Test
    void runMaterializesTheUsersWalkthroughAsScd1() throws Exception {
        Path result = dir.resolve("users1.jsonl");
        assertThat(
                        cli(
                                "run",
                                "--flow",
                                usersFlow("SCD TYPE 1").toString(),
                                "--materialize",
                                result.toString(),
                                "--state-backend",
                                "hashmap"))
                .as(err.toString())
                .isZero();
        assertThat(Files.readAllLines(result))
                .containsExactly(
                        "{\"userId\": 124, \"name\": \"Raul\", \"city\": \"Oaxaca\"}",
                        "{\"userId\": 125, \"name\": \"Mercedes\", \"city\": \"Guadalajara\"}",
                        "{\"userId\": 126, \"name\": \"Lily\", \"city\": \"Cancun\"}");
    }

    @Test
    void runMaterializesTheEmployeesWalkthroughAsBitemporal() throws Exception {
        Path feed = dir.resolve("employees.json");
        Files.writeString(
                feed,
                String.join(
                                "\n",
                                "{\"employeeId\": 1, \"name\": \"Chris\", \"role\": \"Owner\","
                                    + " \"operation\": \"INSERT\", \"effectiveDate\":"
                                    + " \"2025-01-01\", \"recordedAt\": \"2025-01-02 09:00:00\"}",
                                "{\"employeeId\": 2, \"name\": \"Dana\", \"role\": \"Engineer\","
                                    + " \"operation\": \"INSERT\", \"effectiveDate\":"
                                    + " \"2025-01-01\", \"recordedAt\": \"2025-01-02 09:00:00\"}",
                                "{\"employeeId\": 1, \"name\": \"Chris\", \"role\": \"Manager\","
                                    + " \"operation\": \"UPDATE\", \"effectiveDate\":"
                                    + " \"2025-03-01\", \"recordedAt\": \"2025-03-01 09:00:00\"}",
                                "{\"employeeId\": 1, \"name\": \"Chris\", \"role\": \"Team Lead\","
                                    + " \"operation\": \"UPDATE\", \"effectiveDate\":"
                                    + " \"2025-02-01\", \"recordedAt\": \"2025-03-15 09:00:00\"}",
                                "{\"employeeId\": 2, \"name\": \"Dana\", \"role\": \"Analyst\","
                                    + " \"operation\": \"UPDATE\", \"effectiveDate\":"
                                    + " \"2025-01-01\", \"recordedAt\": \"2025-04-01 09:00:00\"}")
                        + "\n");
        Path flow = dir.resolve("employees.sql");
        Files.writeString(
                flow,
                """
                CREATE TABLE employees_cdf (employeeId INT, name STRING, role STRING, operation STRING,
                  effectiveDate DATE, recordedAt TIMESTAMP(0))
                WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');
                CREATE OR REFRESH STREAMING TABLE employees_bitemporal;
                CREATE FLOW apply_cdc AS AUTO CDC INTO employees_bitemporal
                FROM STREAM(employees_cdf)
                KEYS (employeeId)
                APPLY AS DELETE WHEN operation = "DELETE"
                SEQUENCE BY effectiveDate
                SYSTEM SEQUENCE BY recordedAt
                COLUMNS * EXCEPT (operation)
                STORED AS BITEMPORAL;
                """
                        .formatted(feed));
        Path result = dir.resolve("employees.jsonl");
        assertThat(cli("run", "--flow", flow.toString(), "--materialize", result.toString()))
                .as(err.toString())
                .isZero();
        String c = "{\"employeeId\": 1, \"name\": \"Chris\", ";
        String d = "{\"employeeId\": 2, \"name\": \"Dana\", ";
        assertThat(Files.readAllLines(result))
                .containsExactly(
                        c
                                + "\"role\": \"Owner\", \"effectiveDate\": \"2025-01-01\","
                                + " \"recordedAt\": \"2025-01-02 09:00:00\", \"__START_AT\":"
                                + " \"2025-01-01\", \"__END_AT\": null, \"__SYSTEM_START_AT\":"
                                + " \"2025-01-02 09:00:00\", \"__SYSTEM_END_AT\": \"2025-03-01"
                                + " 09:00:00\"}",
                        c
                                + "\"role\": \"Owner\", \"effectiveDate\": \"2025-01-01\","
                                + " \"recordedAt\": \"2025-01-02 09:00:00\", \"__START_AT\":"
                                + " \"2025-01-01\", \"__END_AT\": \"2025-03-01\","
                                + " \"__SYSTEM_START_AT\": \"2025-03-01 09:00:00\","
                                + " \"__SYSTEM_END_AT\": \"2025-03-15 09:00:00\"}",
                        c
                                + "\"role\": \"Owner\", \"effectiveDate\": \"2025-01-01\","
                                + " \"recordedAt\": \"2025-01-02 09:00:00\", \"__START_AT\":"
                                + " \"2025-01-01\", \"__END_AT\": \"2025-02-01\","
                                + " \"__SYSTEM_START_AT\": \"2025-03-15 09:00:00\","
                                + " \"__SYSTEM_END_AT\": null}",
                        c
                                + "\"role\": \"Team Lead\", \"effectiveDate\": \"2025-02-01\","
                                + " \"recordedAt\": \"2025-03-15 09:00:00\", \"__START_AT\":"
                                + " \"2025-02-01\", \"__END_AT\": \"2025-03-01\","
                                + " \"__SYSTEM_START_AT\": \"2025-03-15 09:00:00\","
                                + " \"__SYSTEM_END_AT\": null}",
                        c
                                + "\"role\": \"Manager\", \"effectiveDate\": \"2025-03-01\","
                                + " \"recordedAt\": \"2025-03-01 09:00:00\", \"__START_AT\":"
                                + " \"2025-03-01\", \"__END_AT\": null, \"__SYSTEM_START_AT\":"
                                + " \"2025-03-01 09:00:00\", \"__SYSTEM_END_AT\": null}",
                        d
                                + "\"role\": \"Engineer\", \"effectiveDate\": \"2025-01-01\","
                                + " \"recordedAt\": \"2025-01-02 09:00:00\", \"__START_AT\":"
                                + " \"2025-01-01\", \"__END_AT\": null, \"__SYSTEM_START_AT\":"
                                + " \"2025-01-02 09:00:00\", \"__SYSTEM_END_AT\": \"2025-04-01"
                                + " 09:00:00\"}",
                        d
                                + "\"role\": \"Analyst\", \"effectiveDate\": \"2025-01-01\","
                                + " \"recordedAt\": \"2025-04-01 09:00:00\", \"__START_AT\":"
                                + " \"2025-01-01\", \"__END_AT\": null, \"__SYSTEM_START_AT\":"
                                + " \"2025-04-01 09:00:00\", \"__SYSTEM_END_AT\": null}");
    }

    /** The example flows of the repository, as the README tells a new user to run them. */
    @Test
    void theExamplesRunAndValidate() throws Exception {
        Path root = Path.of("..").toAbsolutePath().normalize();
        String flow =
                Files.readString(root.resolve("examples/users_history.sql"))
                        .replace(
                                "'examples/users_cdf.json'",
                                "'" + root.resolve("examples/users_cdf.json") + "'");
        // with a malformed line mixed in, as a real feed has: a dead letter, counted, not a failure
        List<String> feed = new java.util.ArrayList<>(Files.readAllLines(usersFeed()));
        feed.add(4, "{\"userId\": 127, \"name\": \"Ana\", \"city\":");
        Path feedCopy = dir.resolve("users_cdf.json");
        Files.write(feedCopy, feed);
        flow =
                flow.replace(
                        root.resolve("examples/users_cdf.json").toString(), feedCopy.toString());
        Path copy = dir.resolve("users_history.sql");
        Files.writeString(copy, flow);
        Path result = dir.resolve("example.jsonl");
        assertThat(cli("run", "--flow", copy.toString(), "--materialize", result.toString()))
                .as(err.toString())
                .isZero();
        assertThat(err.toString())
                .contains("autocdc: flow apply_cdc: 1 dead letter (PARSE_ERROR 1) logged only");
        assertThat(Files.readAllLines(result))
                .hasSize(7)
                .contains(
                        "{\"userId\": 125, \"name\": \"Mercedes\", \"city\": \"Mexicali\","
                                + " \"__START_AT\": 5, \"__END_AT\": 6}");
        assertThat(
                        cli(
                                "validate",
                                "--flow",
                                root.resolve("examples/employees_kafka.sql").toString()))
                .as(err.toString())
                .isZero();
        assertThat(out.toString())
                .contains(
                        "flow apply_cdc: AUTO CDC INTO employees_bitemporal",
                        "changelog mode: upsert",
                        "FROM `__autocdc_apply_cdc`",
                        "CAST(`__offset` AS BIGINT) AS `__offset`");
    }

    @Test
    void validatePrintsThePlan() throws Exception {
        assertThat(cli("validate", "--flow", usersFlow("SCD TYPE 2").toString()))
                .as(err.toString())
                .isZero();
        assertThat(out.toString())
                .contains(
                        "flow apply_cdc: AUTO CDC INTO users_target FROM users_cdf STORED AS SCD2",
                        "    __START_AT INT",
                        "primary key: (userId, __START_AT)",
                        "changelog mode: retract (+I, -U, +U, -D)",
                        "engine input: SELECT `userId`, `name`, `city`, `sequenceNum` AS `__seq`,"
                                + " (operation = 'DELETE') AS `__delete`");
    }

    @Test
    void commandLineSettingsAndCheckpointsReachTheJob() throws Exception {
        assertThat(
                        cli(
                                "validate",
                                "--flow",
                                usersFlow("SCD TYPE 2").toString(),
                                "-Dautocdc.apply_cdc.changelog-mode=upsert"))
                .as(err.toString())
                .isZero();
        assertThat(out.toString()).contains("changelog mode: upsert (+I, +U, -D)");
        Path result = dir.resolve("checkpointed.jsonl");
        assertThat(
                        cli(
                                "run",
                                "--flow",
                                usersFlow("SCD TYPE 2").toString(),
                                "--materialize",
                                result.toString(),
                                "--checkpoint-dir",
                                dir.resolve("checkpoints").toUri().toString(),
                                "-Dexecution.checkpointing.interval=200 ms"))
                .as(err.toString())
                .isZero();
        assertThat(Files.readAllLines(result)).hasSize(7);
    }

    @Test
    void availableNowNeedsASavepointDirectoryAndATargetTable() throws Exception {
        Path flow = dir.resolve("f.sql");
        Files.writeString(flow, "CREATE TABLE t (a INT) WITH ('connector' = 'datagen');");
        assertThatThrownBy(
                        () ->
                                CliOptions.parse(
                                        new String[] {
                                            "run", "--flow", flow.toString(), "--available-now"
                                        }))
                .hasMessageContaining("Missing required argument(s): --savepoint-dir=DIR");
        assertThatThrownBy(
                        () ->
                                CliOptions.parse(
                                        new String[] {
                                            "run",
                                            "--flow",
                                            flow.toString(),
                                            "--available-now",
                                            "--savepoint-dir",
                                            "sp",
                                            "--materialize",
                                            dir.resolve("out.jsonl").toString()
                                        }))
                .hasMessageContaining("write to a target table instead");
        assertThatThrownBy(
                        () ->
                                CliOptions.parse(
                                        new String[] {
                                            "validate", "--flow", flow.toString(), "--available-now"
                                        }))
                .hasMessageContaining("Unknown option: '--available-now'");
    }

    @Test
    void wrongUsageExitsWith2AndAFailingFlowWith1() throws Exception {
        assertThat(cli()).isEqualTo(2);
        assertThat(cli("frobnicate")).isEqualTo(2);
        assertThat(cli("run")).isEqualTo(2);
        assertThat(err.toString())
                .contains("Missing required option: '--flow=FILE.sql'", "Usage: autocdc run");
        Path bad = dir.resolve("bad.sql");
        Files.writeString(
                bad,
                "CREATE OR REFRESH STREAMING TABLE t;\n"
                        + "CREATE FLOW f AS AUTO CDC INTO t FROM nowhere KEYS (k) SEQUENCE BY s;");
        assertThat(cli("run", "--flow", bad.toString())).isEqualTo(1);
        assertThat(err.toString()).contains("line 2, FROM: unknown source nowhere");
    }

    /**
     * --materialize reads the results while the job runs: 100k events (five versions of 20k keys,
     * in a shuffled order) end with the right table instead of stalling once the collect buffer
     * fills (issue 13, item 11); with the default state cache (here every key fits its budget) and
     * with the cache off, the same table, and the progress line says how the cache fares.
     */
    @ParameterizedTest(name = "cached: {0}")
    @ValueSource(booleans = {false, true})
    void materializeKeepsUpWithAHundredThousandEvents(boolean cached) throws Exception {
        int keys = 20_000;
        int events = 100_000;
        Path feed = dir.resolve("many.json");
        StringBuilder lines = new StringBuilder();
        for (int j = 0; j < events; j++) {
            int i = (int) ((j * 7919L) % events); // every index once, out of order
            lines.append("{\"userId\": ")
                    .append(i % keys)
                    .append(", \"name\": \"n")
                    .append(i)
                    .append("\", \"city\": \"c\", \"operation\": \"INSERT\", \"sequenceNum\": ")
                    .append(i / keys)
                    .append("}\n");
        }
        Files.writeString(feed, lines);
        Path flow = dir.resolve("many.sql");
        Files.writeString(
                flow,
                (cached ? "" : "SET 'autocdc.apply_cdc.state-cache-keys' = '0';\n")
                        + Files.readString(usersFlow("SCD TYPE 2"))
                                .replace(usersFeed().toString(), feed.toString()));
        Path result = dir.resolve("many.jsonl");
        assertThat(
                        cli(
                                "run",
                                "--flow",
                                flow.toString(),
                                "--materialize",
                                result.toString(),
                                "-Dmetrics.reporter.autocdc_progress.interval=100 ms"))
                .as(err.toString())
                .isZero();
        // a long run says how far it got, every interval (5 s unless set)
        assertThat(err.toString())
                .containsPattern(
                        "autocdc: progress: [0-9,]+ events in, [0-9,]+ target rows written, 0 dead"
                                + " letters, 0 late events"
                                + (cached
                                        ? ", state cache [0-9]+% hits \\([0-9.]+ of [0-9.]+ MB\\)"
                                        : "\n"));
        List<String> rows = Files.readAllLines(result);
        assertThat(rows).as("five versions of each key").hasSize(events);
        assertThat(rows.get(7))
                .isEqualTo(
                        "{\"userId\": 1, \"name\": \"n"
                                + (1 + 2 * keys)
                                + "\", \"city\": \"c\", \"__START_AT\": 2, \"__END_AT\": 3}");
    }

    /** Paths are checked before a job runs (issue 13, item 14). */
    @Test
    void pathsAreCheckedBeforeTheJobRuns() throws Exception {
        Path flow = usersFlow("SCD TYPE 2");
        assertThat(cli("validate", "--flow", dir.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("the flow file " + dir + " is a directory");
        Path missing = dir.resolve("no-such-dir").resolve("out.jsonl");
        assertThat(cli("run", "--flow", flow.toString(), "--materialize", missing.toString()))
                .isEqualTo(2);
        assertThat(err.toString())
                .contains("the directory " + dir.resolve("no-such-dir") + " does not exist");
        assertThat(cli("run", "--flow", flow.toString(), "--materialize", dir.toString()))
                .isEqualTo(2);
        assertThat(err.toString()).contains("--materialize " + dir + " is a directory");
    }

    @Test
    void anUnboundedSourceIsRefusedWithMaterialize() throws Exception {
        Path flow = dir.resolve("unbounded.sql");
        Files.writeString(
                flow,
                """
                CREATE TABLE src (k INT, v STRING, s BIGINT) WITH ('connector' = 'datagen');
                CREATE OR REFRESH STREAMING TABLE t;
                CREATE FLOW f AS AUTO CDC INTO t FROM src KEYS (k) SEQUENCE BY s;
                """);
        assertThat(
                        cli(
                                "run",
                                "--flow",
                                flow.toString(),
                                "--materialize",
                                dir.resolve("x.jsonl").toString()))
                .isEqualTo(1);
        assertThat(err.toString()).contains("--materialize needs bounded sources");
    }

    @Test
    void severalFlowsMaterializeOneFilePerTarget() {
        assertThat(Materializer.file(Path.of("/tmp/out.jsonl"), "users", 2))
                .isEqualTo(Path.of("/tmp/out.users.jsonl"));
        assertThat(Materializer.file(Path.of("/tmp/out.jsonl"), "users", 1))
                .isEqualTo(Path.of("/tmp/out.jsonl"));
        assertThat(List.of()).isEmpty();
    }

    /**
     * Issue 14, item 2: in application mode main runs in the JobManager's JVM, so it must fail the
     * job, never exit; and a cluster's configuration wins where no flag is given.
     */
    @Test
    void theClusterEntryPointThrowsInsteadOfExitingAndSetsOnlyWhatFlagsAsk() throws Exception {
        Path bad = dir.resolve("bad.sql");
        Files.writeString(
                bad,
                "CREATE FLOW f AS AUTO CDC INTO nowhere FROM STREAM(x) KEYS (id) SEQUENCE BY s;");
        // were main to call System.exit, this test's JVM would end and the run would fail
        assertThatThrownBy(
                        () -> AutoCdcCli.main(new String[] {"validate", "--flow", bad.toString()}))
                .isInstanceOf(AutoCdcCli.CommandFailedException.class)
                .hasMessageContaining("AUTO CDC INTO: no target nowhere is declared");
        Path flow = usersFlow("SCD TYPE 2");
        CliOptions plain = CliOptions.parse(new String[] {"run", "--flow", flow.toString()});
        assertThat(plain.configuration(false).toMap())
                .as("the cluster's config.yaml wins")
                .isEmpty();
        assertThat(plain.configuration(true).toMap())
                .containsEntry("state.backend.type", "rocksdb");
        CliOptions flags =
                CliOptions.parse(
                        new String[] {
                            "run",
                            "--flow",
                            flow.toString(),
                            "--state-backend",
                            "hashmap",
                            "--parallelism",
                            "3"
                        });
        assertThat(flags.configuration(false).toMap())
                .containsOnly(
                        Map.entry("state.backend.type", "hashmap"),
                        Map.entry("parallelism.default", "3"));
        // a local triggered run checkpoints into its savepoint directory, not the JobManager's
        // memory, which holds 5 MB; on a cluster, its configuration decides
        CliOptions triggered =
                CliOptions.parse(
                        new String[] {
                            "run",
                            "--flow",
                            flow.toString(),
                            "--available-now",
                            "--savepoint-dir",
                            "/data/savepoints/"
                        });
        assertThat(triggered.configuration(true).toMap())
                .containsEntry(
                        "execution.checkpointing.dir", "file:///data/savepoints/checkpoints");
        assertThat(triggered.configuration(false).toMap())
                .doesNotContainKey("execution.checkpointing.dir");
        CliOptions withScheme =
                CliOptions.parse(
                        new String[] {
                            "run",
                            "--flow",
                            flow.toString(),
                            "--available-now",
                            "--savepoint-dir",
                            "file:/data/savepoints"
                        });
        assertThat(withScheme.configuration(true).toMap())
                .containsEntry("execution.checkpointing.dir", "file:/data/savepoints/checkpoints");
    }

    /** Flows run with object reuse unless the configuration (a cluster's, or -D) says. */
    @Test
    void objectReuseIsOnUnlessConfigured() {
        var unset = StreamExecutionEnvironment.getExecutionEnvironment(new Configuration());
        AutoCdcCli.reuseObjectsUnlessConfigured(unset);
        assertThat(unset.getConfig().isObjectReuseEnabled()).isTrue();
        Configuration off = new Configuration();
        off.set(PipelineOptions.OBJECT_REUSE, false);
        var configured = StreamExecutionEnvironment.getExecutionEnvironment(off);
        AutoCdcCli.reuseObjectsUnlessConfigured(configured);
        assertThat(configured.getConfig().isObjectReuseEnabled()).isFalse();
    }

    /** The local-only switches, refused on a cluster, whose configuration decides. */
    @Test
    void metricsPortAndLogLevelAreLocalSwitches() throws Exception {
        Path flow = usersFlow("SCD TYPE 2");
        CliOptions o =
                CliOptions.parse(
                        new String[] {"run", "--flow", flow.toString(), "--metrics-port", "9400"});
        assertThat(o.configuration(true).toMap())
                .containsEntry(
                        "metrics.reporter.prom.factory.class",
                        "org.apache.flink.metrics.prometheus.PrometheusReporterFactory")
                .containsEntry("metrics.reporter.prom.port", "9400");
        assertThatThrownBy(() -> o.checkFor(false))
                .hasMessageContaining("--metrics-port is for local runs");
        assertThat(o.configuration(false).toMap()).isEmpty();
        assertThat(cli("run", "--flow", flow.toString(), "--metrics-port", "x")).isEqualTo(2);
        assertThat(err.toString()).contains("Invalid value for option '--metrics-port': 'x'");
        assertThat(cli("run", "--flow", flow.toString(), "--metrics-port", "70000")).isEqualTo(2);
        assertThat(err.toString()).contains("--metrics-port needs a port number (1 to 65535)");
        assertThat(cli("validate", "--flow", flow.toString(), "--log-level", "loud")).isEqualTo(2);
        assertThat(err.toString())
                .contains("--log-level is one of error, warn, info, debug, trace");
        var cluster =
                new AutoCdcCli(
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8),
                        false);
        assertThat(
                        cluster.run(
                                new String[] {
                                    "validate", "--flow", flow.toString(), "--log-level", "debug"
                                }))
                .isEqualTo(2);
        assertThat(err.toString()).contains("--log-level is for local runs");
        Level before = LogManager.getRootLogger().getLevel();
        try {
            assertThat(cli("validate", "--flow", flow.toString(), "--log-level", "warn")).isZero();
            assertThat(LogManager.getRootLogger().getLevel()).isEqualTo(Level.WARN);
        } finally {
            Configurator.setRootLevel(before);
        }
    }

    /** Issue 14, item 6 (first part): as the tools users know. */
    @Test
    void helpAndVersionExitZero() {
        assertThat(cli("--help")).isZero();
        assertThat(out.toString())
                .contains("Usage: autocdc", "Commands:", "run", "bootstrap", "rebuild", "demo");
        out.reset();
        // each command's help names its own options, and only those
        assertThat(cli("run", "--help")).isZero();
        assertThat(out.toString())
                .contains("Usage: autocdc run", "--flow=FILE.sql", "--available-now")
                .doesNotContain("--suffix", "--as-of");
        out.reset();
        assertThat(cli("bootstrap", "-h")).isZero();
        assertThat(out.toString())
                .contains("Usage: autocdc bootstrap", "--from=[FLOW=]TABLE", "--as-of=SQL")
                .doesNotContain("--materialize");
        out.reset();
        assertThat(cli("--version")).isZero();
        assertThat(out.toString().strip()).matches("autocdc \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?");
    }

    /**
     * A source file that does not exist fails validate and run before a job starts, in one line
     * naming the table, its line, the path and the fix, not in Flink's stack trace once the job
     * runs.
     */
    @Test
    void aMissingSourceFileFailsValidateAndRunInOneLine() throws Exception {
        Path missing = dir.resolve("gone.json");
        Path flow = usersFlow("SCD TYPE 2");
        Files.writeString(
                flow, Files.readString(flow).replace(usersFeed().toString(), missing.toString()));
        String expected =
                "autocdc: flow "
                        + flow
                        + ", line 1, CREATE TABLE users_cdf: 'path' = '"
                        + missing
                        + "' does not exist; flow apply_cdc reads this table. Correct 'path'";
        assertThat(cli("validate", "--flow", flow.toString())).isEqualTo(1);
        assertThat(err.toString()).startsWith(expected);
        err.reset();
        assertThat(
                        cli(
                                "run",
                                "--flow",
                                flow.toString(),
                                "--materialize",
                                dir.resolve("out.jsonl").toString()))
                .isEqualTo(1);
        assertThat(err.toString()).startsWith(expected).hasLineCount(1);
    }
}
