package dev.autocdc.operators.flink.state;

import dev.autocdc.operators.core.ColumnType;
import dev.autocdc.operators.core.ValueCodec;
import java.io.EOFException;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * An SCD2 key's recent entries, the value of {@value StateNames#SCD2_RECENT} (see {@code
 * FlinkTimeline}).
 *
 * <ul>
 *   <li>Layout 2: {@code block varint(m) (varint(shared) bytes(rest)){m}}: a block of layout 1
 *       ({@link TimelineBlockSerializer}), whose older link is the key of the newest block, then
 *       the keys of the next {@code m} blocks (at most {@value TimelineBlock#CHAIN_KEYS} - 1, and
 *       none without an older link), newest first, each as the length of the prefix it shares with
 *       the key before it and the rest (the keys of one key's blocks differ in their last bytes).
 *   <li>Layout 1 (read to migrate it): {@code block}; the recent entries knew only the next older
 *       block.
 * </ul>
 */
public final class RecentEntriesSerializer extends StateValueSerializer<TimelineBlock> {
    private static final long serialVersionUID = 1L;
    public static final int VERSION = 2;

    /** More bytes than any sequence key holds: a chain key's rest past it is corrupt. */
    private static final int MAX_KEY_BYTES = 1 << 20;

    public RecentEntriesSerializer(List<ColumnType> types, int version) {
        super(types, version);
    }

    @Override
    void write(TimelineBlock recent, DataOutputView out) throws IOException {
        TimelineBlockSerializer.writeBlock(codec(), recent, out, scratch());
        if (version() >= 2) {
            writeChainKeys(recent, out);
        }
    }

    @Override
    TimelineBlock read(DataInputView in) throws IOException {
        TimelineBlock block =
                TimelineBlockSerializer.readBlock(codec(), in, "the SCD2 recent entries");
        return version() >= 2 ? readChainKeys(block, in, "the SCD2 recent entries") : block;
    }

    static void writeChainKeys(TimelineBlock recent, DataOutputView out) throws IOException {
        byte[][] further = recent.furtherChainKeys();
        ValueCodec.writeVarInt(further.length, out);
        byte[] previous = recent.older();
        for (byte[] key : further) {
            int shared = 0;
            while (shared < key.length
                    && shared < previous.length
                    && key[shared] == previous[shared]) {
                shared++;
            }
            ValueCodec.writeVarInt(shared, out);
            // as ValueCodec.writeBytes writes the rest, without copying it out first
            ValueCodec.writeVarInt(key.length - shared + 1, out);
            out.write(key, shared, key.length - shared);
            previous = key;
        }
    }

    static TimelineBlock readChainKeys(TimelineBlock block, DataInputView in, String what)
            throws IOException {
        try {
            int n = ValueCodec.readVarInt(in);
            if (n == 0) {
                return block;
            }
            if (block.older() == null || n < 0 || n >= TimelineBlock.CHAIN_KEYS) {
                throw new CorruptStateException(
                        what
                                + " after sequence "
                                + CorruptStateException.hex(block.older())
                                + ": "
                                + n
                                + " further chain keys"
                                + (block.older() == null
                                        ? " without a link to an older block"
                                        : ", at most " + (TimelineBlock.CHAIN_KEYS - 1)));
            }
            byte[][] further = new byte[n][];
            byte[] previous = block.older();
            for (int i = 0; i < n; i++) {
                int shared = ValueCodec.readVarInt(in);
                int rest = ValueCodec.readVarInt(in) - 1; // ValueCodec.readBytes's length
                if (shared < 0 || shared > previous.length || rest < 0 || rest > MAX_KEY_BYTES) {
                    throw new CorruptStateException(
                            what
                                    + " after sequence "
                                    + CorruptStateException.hex(block.older())
                                    + ": chain key "
                                    + (i + 2)
                                    + " shares "
                                    + shared
                                    + " bytes with a key of "
                                    + previous.length);
                }
                byte[] key = Arrays.copyOf(previous, shared + rest);
                in.readFully(key, shared, rest);
                further[i] = key;
                previous = key;
            }
            return block.withFurtherChainKeys(further);
        } catch (EOFException e) {
            throw new CorruptStateException(
                    what
                            + " after sequence "
                            + CorruptStateException.hex(block.older())
                            + " end early, in the chain keys",
                    e);
        }
    }

    @Override
    public Snapshot snapshotConfiguration() {
        Snapshot snapshot = new Snapshot();
        snapshot.describe(this);
        return snapshot;
    }

    /** The snapshot: the column types; version {@value #VERSION}, and 1 is read. */
    public static class Snapshot extends StateValueSerializer.Snapshot<TimelineBlock> {
        public Snapshot() {
            super(
                    VERSION,
                    1,
                    RecentEntriesSerializer::new,
                    Map.of("RECENT_ENTRIES", 2, "TIMELINE_BLOCK", 1));
        }
    }
}
