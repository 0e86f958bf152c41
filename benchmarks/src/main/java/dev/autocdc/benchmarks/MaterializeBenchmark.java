package dev.autocdc.benchmarks;

import dev.autocdc.job.cli.AutoCdcCli;
import java.io.BufferedWriter;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * A new user's biggest local run: {@code run --materialize} on a JSON file of N events over K keys
 * into SCD type 2, one line in a thousand malformed, in a JVM sized as {@code deploy/autocdc} sizes
 * it (run.sh gives it {@code -Xmx1g}). Prints the wall time, the process's peak RSS, the rows and
 * the dead letters as {@code figure} lines, and fails when the dead letters are not exactly the
 * malformed lines.
 *
 * <p>Usage: {@code MaterializeBenchmark --events N --keys K}
 */
final class MaterializeBenchmark {
    private static final List<String> CITIES =
            List.of("Monterrey", "Chihuahua", "Oaxaca", "Tijuana", "Mexicali", "Guadalajara");

    private MaterializeBenchmark() {}

    public static void main(String[] args) throws Exception {
        long events = Long.parseLong(args[1]);
        int keys = Integer.parseInt(args[3]);
        Path dir = Files.createTempDirectory("autocdc-materialize");
        Path feed = dir.resolve("events.json");
        long malformed = 0;
        SplittableRandom random = new SplittableRandom(7);
        try (BufferedWriter out = Files.newBufferedWriter(feed, StandardCharsets.UTF_8)) {
            for (long i = 0; i < events; i++) {
                int k = random.nextInt(keys);
                if (i % 1000 == 999) {
                    out.write("{\"userId\": " + k + ", \"name\": \"broken\n");
                    malformed++;
                    continue;
                }
                out.write(
                        "{\"userId\": "
                                + k
                                + ", \"name\": \"user"
                                + k
                                + "\", \"city\": \""
                                + CITIES.get(random.nextInt(CITIES.size()))
                                + "\", \"operation\": \""
                                + (random.nextInt(20) == 0 ? "DELETE" : "UPSERT")
                                + "\", \"sequenceNum\": "
                                + random.nextInt(1_000_000)
                                + "}\n");
            }
        }
        Path flow = dir.resolve("flow.sql");
        Files.writeString(
                flow,
                """
                CREATE TABLE users_cdf (userId INT, name STRING, city STRING, operation STRING, sequenceNum INT)
                WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');
                CREATE OR REFRESH STREAMING TABLE users_history;
                CREATE FLOW apply_cdc AS AUTO CDC INTO users_history FROM STREAM(users_cdf)
                KEYS (userId) APPLY AS DELETE WHEN operation = "DELETE" SEQUENCE BY sequenceNum
                COLUMNS * EXCEPT (operation, sequenceNum) STORED AS SCD TYPE 2;
                """
                        .formatted(feed));
        Path table = dir.resolve("history.jsonl");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        long start = System.nanoTime();
        int code =
                new AutoCdcCli(
                                new PrintStream(new ByteArrayOutputStream()),
                                new PrintStream(err, true, StandardCharsets.UTF_8))
                        .run(
                                new String[] {
                                    "run",
                                    "--flow",
                                    flow.toString(),
                                    "--materialize",
                                    table.toString()
                                });
        double seconds = (System.nanoTime() - start) / 1e9;
        String console = err.toString(StandardCharsets.UTF_8);
        String expected =
                String.format(
                        Locale.ROOT, "%,d dead letters (PARSE_ERROR %,d)", malformed, malformed);
        if (code != 0 || !console.contains(expected)) {
            throw new IllegalStateException("expected " + expected + ", the run said: " + console);
        }
        long rows;
        try (var lines = Files.lines(table)) {
            rows = lines.count();
        }
        String size = events >= 1_000_000 ? (events / 1_000_000) + "m" : (events / 1000) + "k";
        System.out.printf("figure materialize_%s_seconds %.1f%n", size, seconds);
        System.out.printf("figure materialize_%s_peak_rss_mb %d%n", size, BenchmarkJob.peakRssMb());
        System.out.printf("figure materialize_%s_rows %d%n", size, rows);
        System.out.printf("figure materialize_%s_dead_letters %d%n", size, malformed);
        for (Path p : List.of(feed, flow, table)) {
            Files.delete(p);
        }
        Files.delete(dir);
        System.exit(0);
    }
}
