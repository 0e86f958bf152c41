package dev.autocdc.capture;

import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.format.Json;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Captures the changes of a PostgreSQL database into Kafka topics, one per table ({@code
 * <prefix>.<schema>.<table>}), as Kafka Connect's JSON without schemas: what the flow reads with
 * {@code 'format' = 'debezium-json'}. It is Debezium's PostgreSQL connector in Debezium's embedded
 * engine, reading the database's logical replication through the built-in {@code pgoutput} plugin
 * (the server needs {@code wal_level = logical}), with its offsets in a file. The table's rows at
 * the start are read first (a snapshot, {@code "op": "r"}), then every committed change in commit
 * order.
 *
 * <p>Delivery is at least once: a batch's offsets are committed after Kafka has acknowledged every
 * record of it ({@link KafkaChangeWriter}), so a capture stopped in between sends the batch again
 * when it restarts. A flow applies a repeated change as the same event again, which changes nothing
 * (semantics §6).
 *
 * <p>It prints {@code capturing} on standard output once the connector's task runs, and runs until
 * it is stopped (SIGTERM, Ctrl-C) or the connector fails (exit code 1, the reason on standard
 * error).
 */
@Command(
        name = "autocdc-capture",
        mixinStandardHelpOptions = true,
        description =
                "Captures a PostgreSQL database's changes with Debezium into Kafka topics"
                        + " (<prefix>.<schema>.<table>), as JSON for 'format' = 'debezium-json'.")
public final class PostgresCapture implements java.util.concurrent.Callable<Integer> {
    @Option(
            names = "--database",
            required = true,
            description = "the database, as host:port/name (127.0.0.1:5432/postgres)")
    String database;

    @Option(names = "--user", defaultValue = "postgres", description = "default: ${DEFAULT-VALUE}")
    String user;

    @Option(
            names = "--password-env",
            description = "the environment variable that holds the password (default: none)")
    String passwordEnv;

    @Option(
            names = "--tables",
            required = true,
            description = "the tables to capture, schema.table, comma-separated (public.accounts)")
    String tables;

    @Option(names = "--bootstrap-servers", required = true, description = "Kafka's brokers")
    String bootstrapServers;

    @Option(
            names = "--topic-prefix",
            defaultValue = "pg",
            description = "the topics' prefix (default: ${DEFAULT-VALUE})")
    String topicPrefix;

    @Option(
            names = "--offsets",
            required = true,
            description = "the file that keeps the capture's position between runs")
    Path offsets;

    @Option(
            names = "--slot",
            defaultValue = "autocdc",
            description = "the replication slot's name (default: ${DEFAULT-VALUE})")
    String slot;

    public static void main(String[] args) {
        System.exit(new CommandLine(new PostgresCapture()).execute(args));
    }

    /** The connector's settings, Debezium's names. */
    Properties settings() {
        String[] hostPortName = database.split("[:/]", 3);
        if (hostPortName.length != 3) {
            throw new CommandLine.ParameterException(
                    new CommandLine(this),
                    "--database is host:port/name, such as 127.0.0.1:5432/postgres; got "
                            + database);
        }
        Properties p = new Properties();
        p.setProperty("name", "autocdc-capture");
        p.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
        p.setProperty("offset.storage", "org.apache.kafka.connect.storage.FileOffsetBackingStore");
        p.setProperty("offset.storage.file.filename", offsets.toString());
        p.setProperty("offset.flush.interval.ms", "1000");
        p.setProperty("database.hostname", hostPortName[0]);
        p.setProperty("database.port", hostPortName[1]);
        p.setProperty("database.dbname", hostPortName[2]);
        p.setProperty("database.user", user);
        String password = passwordEnv == null ? "" : System.getenv(passwordEnv);
        p.setProperty("database.password", password == null ? "" : password);
        p.setProperty("topic.prefix", topicPrefix);
        p.setProperty("table.include.list", tables);
        p.setProperty("plugin.name", "pgoutput");
        p.setProperty("slot.name", slot);
        p.setProperty("publication.autocreate.mode", "filtered");
        // a quiet table's slot still moves on, so the server does not keep its WAL for ever
        p.setProperty("heartbeat.interval.ms", "10000");
        // what debezium-json reads: no schema envelope, exact decimals as text
        p.setProperty("converter.schemas.enable", "false");
        p.setProperty("decimal.handling.mode", "string");
        return p;
    }

    @Override
    public Integer call() throws Exception {
        Properties settings = settings();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);
        try (KafkaChangeWriter writer = new KafkaChangeWriter(bootstrapServers);
                DebeziumEngine<ChangeEvent<String, String>> engine =
                        DebeziumEngine.create(Json.class)
                                .using(settings)
                                .using(
                                        new DebeziumEngine.ConnectorCallback() {
                                            @Override
                                            public void taskStarted() {
                                                System.out.println("capturing " + tables);
                                                System.out.flush();
                                            }
                                        })
                                .using(
                                        (success, message, error) -> {
                                            if (!success) {
                                                failure.set(
                                                        error != null
                                                                ? error
                                                                : new IllegalStateException(
                                                                        message));
                                            }
                                            done.countDown();
                                        })
                                .notifying(writer)
                                .build()) {
            ExecutorService runner = Executors.newSingleThreadExecutor();
            try {
                runner.execute(engine);
                Thread stop =
                        new Thread(
                                () -> {
                                    try {
                                        engine.close();
                                        done.await();
                                    } catch (Exception e) {
                                        // stopping anyway
                                    }
                                },
                                "autocdc-capture-stop");
                Runtime.getRuntime().addShutdownHook(stop);
                done.await();
            } finally {
                runner.shutdown();
            }
        }
        if (failure.get() != null) {
            System.err.println("autocdc-capture: the connector stopped: " + failure.get());
            return 1;
        }
        return 0;
    }
}
