package dev.autocdc.job.snapshots;

import java.time.Duration;
import java.util.List;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.datastream.DataStreamSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * A source of whole snapshots (semantics §10) that asks a {@link SnapshotReader} for the next one
 * at an interval: a function of the Java API ({@link SnapshotFunctions}), a table read again
 * ({@code 'connector' = 'jdbc-snapshots'}). It never ends. It runs as one reader (a second would
 * hold no split and never move its watermark, so no snapshot would complete), and marks the end of
 * each snapshot with a watermark at its time, so that a flow {@code FROM SNAPSHOT} applies it at
 * once. Checkpoints keep the latest version emitted; a restore asks for the snapshot after it
 * again.
 */
public final class PolledSnapshotSource<T> implements Source<T, PollSplit, List<PollSplit>> {
    private static final long serialVersionUID = 1L;

    private final SnapshotReader<T> reader;
    private final Duration interval;

    public PolledSnapshotSource(SnapshotReader<T> reader, Duration interval) {
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("a snapshot source's interval must be positive");
        }
        this.reader = reader;
        this.interval = interval;
    }

    /** The source in {@code env}, at parallelism 1, its watermarks those the reader emits. */
    public DataStreamSource<T> stream(
            StreamExecutionEnvironment env, String name, TypeInformation<T> type) {
        DataStreamSource<T> stream =
                env.fromSource(this, WatermarkStrategy.noWatermarks(), name, type);
        stream.setParallelism(1);
        return stream;
    }

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.CONTINUOUS_UNBOUNDED;
    }

    @Override
    public SourceReader<T, PollSplit> createReader(SourceReaderContext context) {
        return new PollReader<>(
                reader, interval.toMillis(), context.getUserCodeClassLoader().asClassLoader());
    }

    @Override
    public SplitEnumerator<PollSplit, List<PollSplit>> createEnumerator(
            SplitEnumeratorContext<PollSplit> context) {
        return new PollEnumerator(context, List.of(new PollSplit(null)));
    }

    @Override
    public SplitEnumerator<PollSplit, List<PollSplit>> restoreEnumerator(
            SplitEnumeratorContext<PollSplit> context, List<PollSplit> checkpoint) {
        return new PollEnumerator(context, checkpoint);
    }

    @Override
    public SimpleVersionedSerializer<PollSplit> getSplitSerializer() {
        return PollSplit.Serializer.INSTANCE;
    }

    @Override
    public SimpleVersionedSerializer<List<PollSplit>> getEnumeratorCheckpointSerializer() {
        return new PollEnumerator.StateSerializer();
    }
}
