package dev.autocdc.operators.flink.state;

import dev.autocdc.operators.core.BitemporalSnapshot;
import dev.autocdc.operators.core.ColumnType;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * What the history retention kept of a bitemporal key's dropped history ({@value
 * StateNames#BITEMPORAL_SNAPSHOT}). Layout 1: {@code bytes(floor) bytes(floor system) bool(has
 * seed) [row] varint(n) (bytes(start) bytes(end) row bytes(system start) bytes(system end)){n}},
 * rows as {@link dev.autocdc.operators.core.StateCodec#writeRow} writes them.
 */
public final class BitemporalSnapshotSerializer extends StateValueSerializer<BitemporalSnapshot> {
    private static final long serialVersionUID = 1L;
    static final int VERSION = 1;

    public BitemporalSnapshotSerializer(List<ColumnType> types) {
        super(types, VERSION);
    }

    @Override
    void write(BitemporalSnapshot snapshot, DataOutputView out) throws IOException {
        codec().writeSnapshot(snapshot, out);
    }

    @Override
    BitemporalSnapshot read(DataInputView in) throws IOException {
        try {
            return codec().readSnapshot(in);
        } catch (IOException | RuntimeException e) {
            throw new CorruptStateException(
                    "a bitemporal retention snapshot does not decode: " + e, e);
        }
    }

    @Override
    public Snapshot snapshotConfiguration() {
        Snapshot snapshot = new Snapshot();
        snapshot.describe(this);
        return snapshot;
    }

    /** The snapshot: the column types; version {@value #VERSION}. */
    public static class Snapshot extends StateValueSerializer.Snapshot<BitemporalSnapshot> {
        public Snapshot() {
            super(
                    VERSION,
                    VERSION,
                    (types, version) -> new BitemporalSnapshotSerializer(types),
                    Map.of("BITEMPORAL_SNAPSHOT", 1));
        }
    }
}
