package dev.autocdc.benchmarks;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;

/**
 * A local savepoint's files: the directory Flink names by a path or a {@code file:} URI, its size
 * (the sum of its regular files) and its removal.
 */
final class SavepointFiles {

    private SavepointFiles() {}

    /** The directory of the savepoint Flink returned, as a path or a {@code file:} URI. */
    static Path directory(String savepoint) {
        return Path.of(
                URI.create(savepoint.startsWith("file:") ? savepoint : "file://" + savepoint));
    }

    static long sizeOf(Path dir) throws IOException {
        try (var files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
        }
    }

    static void deleteTree(Path dir) throws IOException {
        try (var files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }
}
