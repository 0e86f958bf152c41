package dev.autocdc.job.cli;

import dev.autocdc.operators.flink.runtime.DeadLetter;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * {@code run --dead-letters FILE.jsonl}: writes the dead letters and late events that have no table
 * to one local file, a JSON object per line ({@link DeadLetter#toJson()}). For local runs, as
 * {@code --materialize} is: it must run with parallelism 1 in the CLI's machine, and it is not
 * transactional (a restarted job appends again what it had written since its last checkpoint).
 * Letters are flushed at each checkpoint, at the end of the input, when the job is cancelled (a
 * stopped run, {@link StoppableRun}), and, while they come, at most a second apart.
 */
final class DeadLetterFile implements Sink<DeadLetter> {
    private static final long serialVersionUID = 1L;

    /** A letter reaches the file within this long of the one before it (1 s). */
    private static final long FLUSH_EVERY_NANOS = 1_000_000_000L;

    private final String path;

    /** Empties the file, which the sink then appends to. */
    DeadLetterFile(Path path) throws IOException {
        this.path = path.toAbsolutePath().toString();
        Files.writeString(path, "");
    }

    @Override
    public SinkWriter<DeadLetter> createWriter(WriterInitContext context) throws IOException {
        BufferedWriter out =
                Files.newBufferedWriter(
                        Path.of(path), StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        return new SinkWriter<>() {
            private long flushed = System.nanoTime();

            @Override
            public void write(DeadLetter letter, Context context) throws IOException {
                out.write(letter.toJson());
                out.newLine();
                if (System.nanoTime() - flushed > FLUSH_EVERY_NANOS) {
                    out.flush();
                    flushed = System.nanoTime();
                }
            }

            @Override
            public void flush(boolean endOfInput) {
                try {
                    out.flush();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }

            @Override
            public void close() throws IOException {
                out.close();
            }
        };
    }
}
