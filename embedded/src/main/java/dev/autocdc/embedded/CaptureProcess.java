package dev.autocdc.embedded;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The capture of a PostgreSQL database (the {@code capture} module's {@code PostgresCapture}:
 * Debezium into Kafka) in a JVM of its own, as users run Kafka Connect: Debezium is built on a
 * newer Kafka client and Connect runtime than the job's, and the two do not share a classpath.
 *
 * <p>The capture's jar and classpath are found in {@code capture/target} of the build: the
 * directory named by the system property {@value #HOME}, else {@code ../capture/target} or {@code
 * capture/target} from the working directory ({@code deploy/autocdc} sets the property).
 */
final class CaptureProcess implements AutoCloseable {
    /** The system property that names the capture module's build directory. */
    static final String HOME = "autocdc.capture.home";

    private final Process process;
    private final Path log;

    private CaptureProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /**
     * Starts the capture and waits until its connector's task runs.
     *
     * @param database host:port/name
     * @param tables schema.table, comma-separated
     * @param dir where its offsets file and log go
     */
    static CaptureProcess start(
            String database, String tables, String bootstrapServers, String prefix, Path dir)
            throws Exception {
        Path home = home();
        String classpath =
                jar(home)
                        + File.pathSeparator
                        + Files.readString(home.resolve("capture-classpath.txt")).trim();
        List<String> command =
                new ArrayList<>(
                        List.of(
                                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                                "-Xmx256m",
                                "-cp",
                                classpath,
                                "dev.autocdc.capture.PostgresCapture",
                                "--database",
                                database,
                                "--tables",
                                tables,
                                "--bootstrap-servers",
                                bootstrapServers,
                                "--topic-prefix",
                                prefix,
                                "--offsets",
                                dir.resolve("capture-offsets.dat").toString()));
        Path log = dir.resolve("capture.log");
        Process process = new ProcessBuilder(command).redirectError(log.toFile()).start();
        CaptureProcess capture = new CaptureProcess(process, log);
        Runtime.getRuntime().addShutdownHook(new Thread(capture::close));
        capture.awaitStarted(Duration.ofMinutes(2));
        return capture;
    }

    private void awaitStarted(Duration timeout) throws Exception {
        // a read of the process's output ignores interrupts: the timer ends the process, which
        // closes the output, and the read returns
        Thread timer =
                new Thread(
                        () -> {
                            try {
                                Thread.sleep(timeout.toMillis());
                                process.destroy();
                            } catch (InterruptedException started) {
                                // the capture started in time
                            }
                        });
        timer.setDaemon(true);
        timer.start();
        // not closed: the capture keeps its standard output
        BufferedReader out =
                new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        try {
            String line;
            while ((line = out.readLine()) != null) {
                if (line.startsWith("capturing")) {
                    timer.interrupt();
                    return;
                }
            }
        } catch (IOException e) {
            // the process ended, or the wait timed out: said below
        }
        close();
        throw new IllegalStateException(
                "the capture did not start within "
                        + timeout.toSeconds()
                        + " s; its log ("
                        + log
                        + "):\n"
                        + Files.readString(log));
    }

    private static Path home() {
        String given = System.getProperty(HOME);
        List<Path> candidates =
                given != null
                        ? List.of(Path.of(given))
                        : List.of(Path.of("..", "capture", "target"), Path.of("capture", "target"));
        for (Path p : candidates) {
            if (Files.isRegularFile(p.resolve("capture-classpath.txt"))) {
                return p;
            }
        }
        throw new IllegalStateException(
                "the capture is not built (no capture-classpath.txt in "
                        + candidates
                        + "); run: mvn -B -ntp -q package -DskipTests");
    }

    private static Path jar(Path home) throws IOException {
        try (var files = Files.list(home)) {
            return files.filter(
                            f -> {
                                String n = f.getFileName().toString();
                                return n.startsWith("autocdc-capture-") && n.endsWith(".jar");
                            })
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException("no capture jar in " + home));
        }
    }

    /** Stops the capture (SIGTERM: it closes the engine, which commits what Kafka acknowledged). */
    @Override
    public void close() {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
