package dev.autocdc.job.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Flow files where a cluster finds them (a plain path, as a mounted ConfigMap gives, or a Flink
 * file-system URI), and secrets from the environment that the command line never prints.
 */
class FlowLocationTest {
    private static final String SECRET = "Pa55-w0rd-from-a-Secret";

    @TempDir Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int cli(Map<String, String> env, String... args) {
        return new AutoCdcCli(
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8))
                .withEnvironment(env)
                .run(args);
    }

    /** A Kafka flow whose credentials and format come from the environment. */
    private Path kafkaFlow(String format) throws Exception {
        Path flow = dir.resolve("secret.sql");
        Files.writeString(
                flow,
                """
                CREATE TABLE src (id INT, v STRING, seq INT)
                WITH ('connector' = 'kafka', 'topic' = 'src', 'properties.bootstrap.servers' = '${env:BROKERS}',
                      'properties.security.protocol' = 'SASL_SSL', 'properties.sasl.mechanism' = 'PLAIN',
                      'properties.sasl.jaas.config' = 'org.apache.kafka.common.security.plain.PlainLoginModule required username="autocdc" password="${env:KAFKA_PASSWORD}";',
                      'scan.startup.mode' = 'earliest-offset', 'format' = '%s');
                CREATE OR REFRESH STREAMING TABLE t
                WITH ('connector' = 'upsert-kafka', 'topic' = 't', 'properties.bootstrap.servers' = '${env:BROKERS}',
                      'properties.sasl.jaas.config' = 'password="${env:KAFKA_PASSWORD}"',
                      'key.format' = 'json', 'value.format' = 'json');
                CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(src) KEYS (id) SEQUENCE BY seq
                STORED AS SCD TYPE 1;
                """
                        .formatted(format));
        return flow;
    }

    private static final Map<String, String> ENV =
            Map.of("BROKERS", "broker-1.internal:9093", "KAFKA_PASSWORD", SECRET);

    @Test
    void aPlainPathAndAFileUriReadTheSameFlow() throws Exception {
        Path flow = kafkaFlow("json");
        assertThat(cli(ENV, "validate", "--flow", flow.toString())).as(err.toString()).isZero();
        String plain = out.toString();
        out.reset();
        assertThat(cli(ENV, "validate", "--flow", flow.toUri().toString()))
                .as(err.toString())
                .isZero();
        assertThat(flow.toUri().toString()).startsWith("file:///");
        assertThat(out.toString()).isEqualTo(plain).contains("flow f: AUTO CDC INTO t FROM src");
    }

    @Test
    void aMissingFlowFileIsNamedWhateverItsScheme() {
        String missing = dir.resolve("none.sql").toUri().toString();
        assertThat(cli(ENV, "validate", "--flow", missing)).isEqualTo(2);
        assertThat(err.toString())
                .contains("cannot read the flow file " + missing + ": no such file");
        err.reset();
        assertThat(cli(ENV, "validate", "--flow", "nosuch://bucket/flow.sql")).isEqualTo(2);
        assertThat(err.toString())
                .contains(
                        "cannot read the flow file nosuch://bucket/flow.sql",
                        "needs its Flink file-system plugin");
    }

    @Test
    void validateShowsTheReferenceNotTheSecret() throws Exception {
        assertThat(cli(ENV, "validate", "--flow", kafkaFlow("json").toString()))
                .as(err.toString())
                .isZero();
        // the target's options are printed, with the references in place of the values
        assertThat(out.toString())
                .contains("password=\"${env:KAFKA_PASSWORD}\"", "${env:BROKERS}")
                .doesNotContain(SECRET, "broker-1.internal");
    }

    @Test
    void anErrorMessageShowsTheReferenceNotTheSecret() throws Exception {
        // the value lands in a place that Flink's error message quotes: the format's name
        Map<String, String> env =
                Map.of("BROKERS", "b:9092", "KAFKA_PASSWORD", SECRET, "FORMAT", "json-" + SECRET);
        assertThat(cli(env, "validate", "--flow", kafkaFlow("${env:FORMAT}").toString()))
                .isEqualTo(1);
        assertThat(err.toString()).contains("${env:FORMAT}").doesNotContain(SECRET);
    }

    @Test
    void anUnsetVariableFailsNamingTheLine() throws Exception {
        assertThat(
                        cli(
                                Map.of("BROKERS", "b:9092"),
                                "validate",
                                "--flow",
                                kafkaFlow("json").toString()))
                .isEqualTo(1);
        assertThat(err.toString())
                .contains(
                        "line 4, ${env:KAFKA_PASSWORD}: the environment variable KAFKA_PASSWORD"
                                + " is not set");
    }

    @Test
    void aClusterRunsOutputIsRedactedToo() throws Exception {
        // the cluster's command line (main's exception, what a cluster shows as the job's failure,
        // is built from it)
        Map<String, String> env =
                Map.of("BROKERS", "b:9092", "KAFKA_PASSWORD", SECRET, "FORMAT", "json-" + SECRET);
        var cli =
                new AutoCdcCli(
                                new PrintStream(out, true, StandardCharsets.UTF_8),
                                new PrintStream(err, true, StandardCharsets.UTF_8),
                                false)
                        .withEnvironment(env);
        assertThat(
                        cli.run(
                                new String[] {
                                    "validate", "--flow", kafkaFlow("${env:FORMAT}").toString()
                                }))
                .isEqualTo(1);
        assertThat(err.toString()).contains("${env:FORMAT}").doesNotContain(SECRET);
    }
}
