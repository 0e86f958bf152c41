package dev.autocdc.operators.flink.state;

import dev.autocdc.operators.core.BitemporalHead;
import dev.autocdc.operators.core.ColumnType;
import dev.autocdc.operators.core.StateCodec;
import java.io.EOFException;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * A bitemporal key's head kept apart from its entries ({@value StateNames#BITEMPORAL_HEAD}: a key
 * whose expired tombstone left no entries; the recent entries carry it otherwise). Layout 2: {@code
 * bytes(latest system sequence) bytes(open version's system start) bytes(floor sequence)
 * bytes(floor system sequence)}. Layout 1, the pre-release head (with the belief's state), is
 * refused.
 */
public final class BitemporalHeadSerializer extends StateValueSerializer<BitemporalHead> {
    private static final long serialVersionUID = 1L;
    static final int VERSION = 2;

    public BitemporalHeadSerializer(List<ColumnType> types) {
        super(types, VERSION);
    }

    @Override
    void write(BitemporalHead head, DataOutputView out) throws IOException {
        codec().writeHead(head, out);
    }

    @Override
    BitemporalHead read(DataInputView in) throws IOException {
        return readHead(codec(), in, "a bitemporal head");
    }

    static BitemporalHead readHead(StateCodec codec, DataInputView in, String what)
            throws IOException {
        try {
            return codec.readHead(in);
        } catch (EOFException e) {
            throw new CorruptStateException(what + ": the head ends early", e);
        }
    }

    @Override
    public Snapshot snapshotConfiguration() {
        Snapshot snapshot = new Snapshot();
        snapshot.describe(this);
        return snapshot;
    }

    /** The snapshot: the column types; version {@value #VERSION}. */
    public static class Snapshot extends StateValueSerializer.Snapshot<BitemporalHead> {
        public Snapshot() {
            super(
                    VERSION,
                    VERSION,
                    (types, version) -> new BitemporalHeadSerializer(types),
                    Map.of("BITEMPORAL_SYSTEM_HEAD", 2, "BITEMPORAL_HEAD", 1));
        }
    }
}
