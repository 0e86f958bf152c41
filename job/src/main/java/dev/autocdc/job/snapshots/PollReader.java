package dev.autocdc.job.snapshots;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.core.io.InputStatus;

/**
 * The reader of a {@link PolledSnapshotSource}: once it holds the split, it asks its {@link
 * SnapshotReader} for the next snapshot at each poll, emits the snapshot's rows within one call of
 * {@link #pollNext} (a checkpoint falls before or after a snapshot, never inside), then a watermark
 * at the snapshot's time, which completes it downstream (semantics §10).
 *
 * <p>After a snapshot it asks again at once when the reader {@link SnapshotReader#catchesUp()
 * catches up} (a function with several new snapshots), else after the interval; after "nothing
 * new", after the interval.
 */
final class PollReader<T> implements SourceReader<T, PollSplit> {
    private final SnapshotReader<T> reader;
    private final long intervalMillis;
    private final ClassLoader classLoader;

    /** Null until the enumerator assigns it. */
    private PollSplit split;

    private long nextPoll;
    private CompletableFuture<Void> assigned = new CompletableFuture<>();

    PollReader(SnapshotReader<T> reader, long intervalMillis, ClassLoader classLoader) {
        this.reader = reader;
        this.intervalMillis = intervalMillis;
        this.classLoader = classLoader;
    }

    @Override
    public void start() {
        try {
            reader.open(classLoader);
        } catch (Exception e) {
            throw new IllegalStateException("the snapshot source could not open: " + e, e);
        }
    }

    @Override
    public InputStatus pollNext(ReaderOutput<T> output) throws Exception {
        long now = System.currentTimeMillis();
        if (split == null || now < nextPoll) {
            return InputStatus.NOTHING_AVAILABLE;
        }
        SnapshotReader.Emitted emitted = reader.next(split.latest(), output::collect);
        if (emitted == null) {
            nextPoll = now + intervalMillis;
            return InputStatus.NOTHING_AVAILABLE;
        }
        split = new PollSplit(emitted.version());
        output.emitWatermark(new Watermark(emitted.time()));
        if (reader.catchesUp()) {
            return InputStatus.MORE_AVAILABLE;
        }
        nextPoll = now + intervalMillis;
        return InputStatus.NOTHING_AVAILABLE;
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
        if (split == null) {
            return assigned;
        }
        long wait = nextPoll - System.currentTimeMillis();
        return wait <= 0
                ? CompletableFuture.completedFuture(null)
                : CompletableFuture.runAsync(
                        () -> {}, CompletableFuture.delayedExecutor(wait, TimeUnit.MILLISECONDS));
    }

    @Override
    public List<PollSplit> snapshotState(long checkpointId) {
        return split == null ? List.of() : List.of(split);
    }

    @Override
    public void addSplits(List<PollSplit> splits) {
        split = splits.get(0);
        assigned.complete(null);
    }

    @Override
    public void notifyNoMoreSplits() {}

    @Override
    public void close() throws Exception {
        reader.close();
    }
}
