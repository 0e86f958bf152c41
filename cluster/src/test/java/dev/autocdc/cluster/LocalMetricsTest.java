package dev.autocdc.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.embedded.kafka.EmbeddedKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A user's local run with {@code deploy/autocdc run --metrics-port}: a running flow's Prometheus
 * endpoint, scraped as Prometheus would, holds the flow's counters, its dead letters by reason and
 * their rate, and the freshness gauges; the run prints its progress line on stderr.
 */
class LocalMetricsTest {
    @TempDir Path dir;

    @Test
    void aRunningFlowsEndpointHoldsItsCountersAndGauges() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            Scd2Workload w = new Scd2Workload(31, 200, 8);
            Topics.produce(kafka, "cdc_metrics", w.lines, 3);
            int events = w.lines.size() - w.malformed;
            // the sequences as times of an hour ago: seq milliseconds after that
            long base = System.currentTimeMillis() - 3_600_000L;
            long newestSequence = base + 3 * 8; // Scd2Workload's sequences: 1 to 3 x events per key
            Path flow = dir.resolve("metrics.sql");
            Files.writeString(
                    flow,
                    """
                    CREATE TABLE src (id INT, name STRING, city STRING, op STRING, seq BIGINT,
                                      ts AS TO_TIMESTAMP_LTZ(seq + %d, 3))
                    WITH ('connector' = 'kafka', 'topic' = 'cdc_metrics', 'properties.bootstrap.servers' = '%s',
                          'properties.group.id' = 'metrics', 'scan.startup.mode' = 'earliest-offset',
                          'format' = 'json');
                    CREATE OR REFRESH STREAMING TABLE hist
                    WITH ('connector' = 'upsert-kafka', 'topic' = 'hist_metrics', 'properties.bootstrap.servers' = '%s',
                          'key.format' = 'json', 'value.format' = 'json');
                    CREATE FLOW apply_cdc AS AUTO CDC INTO hist FROM STREAM(src)
                    KEYS (id) APPLY AS DELETE WHEN op = 'DELETE' SEQUENCE BY ts
                    COLUMNS * EXCEPT (op, seq, ts) STORED AS SCD TYPE 2;
                    """
                            .formatted(base, kafka.bootstrapServers(), kafka.bootstrapServers()));
            int port = LocalCluster.freePort();
            Path stderr = dir.resolve("stderr.log");
            Process run =
                    new ProcessBuilder(
                                    Path.of("..", "deploy", "autocdc").toAbsolutePath().toString(),
                                    "run",
                                    "--flow",
                                    flow.toString(),
                                    "--metrics-port",
                                    "" + port,
                                    "--parallelism",
                                    "2",
                                    "-Dmetrics.reporter.autocdc_progress.interval=1 s")
                            .redirectOutput(dir.resolve("stdout.log").toFile())
                            .redirectError(stderr.toFile())
                            .start();
            try {
                PrometheusText metrics = null;
                long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
                while (System.nanoTime() < deadline) {
                    Thread.sleep(1000);
                    assertThat(run.isAlive()).as(Files.readString(stderr)).isTrue();
                    try {
                        metrics = PrometheusText.scrape(port);
                    } catch (java.io.IOException notYet) {
                        continue;
                    }
                    if (metrics.sum("_flow_num_input_rows", "apply_cdc") == events
                            && metrics.sum("_num_dead_letters", "apply_cdc") > 0) {
                        break;
                    }
                }
                assertThat(metrics).as("the endpoint answered").isNotNull();
                assertThat(metrics.sum("_flow_num_input_rows", "apply_cdc")).isEqualTo(events);
                assertThat(metrics.sum("_flow_num_upserted_rows", "apply_cdc"))
                        .isGreaterThan(events / 2.0);
                assertThat(metrics.of("_flow_num_deleted_rows", "apply_cdc")).hasSize(2);
                assertThat(metrics.sum("_flow_num_late_events", "apply_cdc")).isGreaterThan(0);
                // dead letters by reason, from the letters' own counter, and their rate
                List<PrometheusText.Sample> letters =
                        metrics.of("_flow_reason_num_dead_letters", "apply_cdc");
                assertThat(letters)
                        .isNotEmpty()
                        .allMatch(s -> s.labels().get("reason").equals("PARSE_ERROR"));
                assertThat(metrics.sum("_flow_reason_num_dead_letters", "apply_cdc"))
                        .isEqualTo(w.malformed);
                assertThat(metrics.of("_flow_dead_letters_per_second", "apply_cdc")).isNotEmpty();
                // the write-back cache, on by default: a budget of the local heap, within it
                double budget = metrics.max("_flow_state_cache_budget_bytes", "apply_cdc");
                assertThat(budget).isGreaterThan(1 << 20);
                assertThat(metrics.max("_flow_state_cache_bytes", "apply_cdc"))
                        .isBetween(1.0, budget);
                assertThat(metrics.sum("_flow_state_cache_keys", "apply_cdc")).isEqualTo(200);
                // freshness: the newest applied sequence (epoch ms) and the lag behind the clock
                assertThat(metrics.max("_flow_newest_applied_sequence", "apply_cdc"))
                        .isEqualTo(newestSequence);
                // an hour, plus the time since the event (the test's minutes at most)
                assertThat(metrics.max("_flow_applied_sequence_lag_ms", "apply_cdc"))
                        .isBetween(3_600_000.0 - 24, 3_600_000.0 + 600_000);
                // the progress line, every second here, comes to the same counts; both are read
                // again until they settle (a scrape can land while the last rows are written)
                String expected = progressLine(metrics, events, w.malformed);
                long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
                while (!Files.readString(stderr).contains(expected) && System.nanoTime() < until) {
                    Thread.sleep(500);
                    expected = progressLine(PrometheusText.scrape(port), events, w.malformed);
                }
                assertThat(Files.readString(stderr)).contains(expected);
            } finally {
                run.destroy();
                assertThat(run.waitFor(1, TimeUnit.MINUTES)).isTrue();
            }
        }
    }

    /** The progress line the scraped counters make. */
    private static String progressLine(PrometheusText metrics, long events, long malformed) {
        return String.format(
                "autocdc: progress: %,d events in, %,d target rows written, %,d dead letters, 0"
                        + " late events",
                events,
                (long)
                        (metrics.sum("_flow_num_upserted_rows", "apply_cdc")
                                + metrics.sum("_flow_num_deleted_rows", "apply_cdc")),
                malformed);
    }
}
