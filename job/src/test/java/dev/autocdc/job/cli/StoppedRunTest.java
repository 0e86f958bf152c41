package dev.autocdc.job.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A local run over a watched directory, stopped with Ctrl-C as a user stops it: the CLI in a JVM of
 * its own, sent SIGINT. What it counted is flushed and summed up, and it exits as an interrupted
 * process (130).
 */
class StoppedRunTest {
    @TempDir Path dir;

    @Test
    void ctrlCFlushesTheLettersPrintsTheSummaryAndExits130() throws Exception {
        Path in = Files.createDirectories(dir.resolve("in"));
        Files.write(
                in.resolve("a.json"),
                List.of(
                        "{\"id\": 1, \"seq\": 5, \"name\": \"a\"}",
                        "{not json",
                        "{\"id\": null, \"seq\": 1, \"name\": \"x\"}"));
        Path flow = dir.resolve("flow.sql");
        Files.writeString(
                flow,
                """
                CREATE TABLE feed (id INT, seq INT, name STRING)
                WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json',
                      'source.monitor-interval' = '1 s');
                CREATE OR REFRESH STREAMING TABLE t;
                CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(feed) KEYS (id) SEQUENCE BY seq;
                """
                        .formatted(in));
        Path letters = dir.resolve("letters.jsonl");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String pkg : List.of("java.util", "java.lang", "java.lang.invoke", "java.net")) {
            command.add("--add-opens=java.base/" + pkg + "=ALL-UNNAMED");
        }
        command.addAll(
                List.of(
                        "-cp",
                        System.getProperty("java.class.path"),
                        LocalLauncher.class.getName(),
                        "run",
                        "--flow",
                        flow.toString(),
                        "--dead-letters",
                        letters.toString(),
                        "-Dmetrics.reporter.autocdc_progress.interval=1s"));
        Process run =
                new ProcessBuilder(command).redirectOutput(dir.resolve("out").toFile()).start();
        List<String> err = new CopyOnWriteArrayList<>();
        Thread reader =
                new Thread(
                        () -> {
                            try (BufferedReader r =
                                    new BufferedReader(
                                            new InputStreamReader(
                                                    run.getErrorStream(),
                                                    StandardCharsets.UTF_8))) {
                                r.lines().forEach(err::add);
                            } catch (Exception e) {
                                err.add("reader failed: " + e);
                            }
                        });
        reader.start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (err.stream().noneMatch(l -> l.contains(", 2 dead letters,"))
                    && run.isAlive()
                    && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            assertThat(err)
                    .as("the run counted both letters")
                    .anyMatch(l -> l.contains(", 2 dead letters,"));
            new ProcessBuilder("kill", "-INT", Long.toString(run.pid())).start().waitFor();
            assertThat(run.waitFor(60, TimeUnit.SECONDS)).as(String.join("\n", err)).isTrue();
        } finally {
            run.destroyForcibly();
        }
        reader.join(10_000);
        assertThat(run.exitValue()).as(String.join("\n", err)).isEqualTo(130);
        assertThat(err)
                .contains(
                        "autocdc: flow f: 2 dead letters (NULL_KEY 1, PARSE_ERROR 1) written to "
                                + letters
                                + ", 0 late events")
                .anyMatch(l -> l.startsWith("autocdc: interrupted: the job was cancelled"))
                .noneMatch(l -> l.contains("JobCancellationException"));
        assertThat(Files.readAllLines(letters))
                .hasSize(2)
                .anyMatch(l -> l.contains("\"reason\": \"NULL_KEY\""))
                .anyMatch(l -> l.contains("\"reason\": \"PARSE_ERROR\""));
    }
}
