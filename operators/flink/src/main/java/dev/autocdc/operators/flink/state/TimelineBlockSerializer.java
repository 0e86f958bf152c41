package dev.autocdc.operators.flink.state;

import dev.autocdc.operators.core.ColumnType;
import dev.autocdc.operators.core.StateCodec;
import dev.autocdc.operators.core.ValueCodec;
import java.io.EOFException;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;

/**
 * A block of a key's timeline, the value of {@value StateNames#SCD2_BLOCKS} and {@value
 * StateNames#BITEMPORAL_BLOCKS} (see {@code FlinkTimeline}). Layout 1: {@code bytes(older)
 * varint(n) (varint(length) entry){n}}: the key of the next older block (null for the oldest), then
 * the entries ascending, each as {@link StateCodec#writeEntry} writes it, behind its length so that
 * an entry is decoded only when the engine reads it. The recent entries' layouts start with this
 * one.
 */
public final class TimelineBlockSerializer extends StateValueSerializer<TimelineBlock> {
    private static final long serialVersionUID = 1L;
    static final int VERSION = 1;

    /**
     * More entries than any block holds (blocks split at twice the block size, at most {@code
     * EngineOptions.MAX_BLOCK_SIZE}): a count past it is corrupt.
     */
    private static final int MAX_ENTRIES = 1 << 20;

    public TimelineBlockSerializer(List<ColumnType> types) {
        super(types, VERSION);
    }

    @Override
    void write(TimelineBlock block, DataOutputView out) throws IOException {
        writeBlock(codec(), block, out, scratch());
    }

    @Override
    TimelineBlock read(DataInputView in) throws IOException {
        return readBlock(codec(), in, "a timeline block");
    }

    /**
     * Writes layout 1; {@code one} is an empty buffer for an entry that has no stored bytes (the
     * serializer's {@link StateValueSerializer#scratch()}).
     */
    static void writeBlock(
            StateCodec codec, TimelineBlock block, DataOutputView out, DataOutputSerializer one)
            throws IOException {
        ValueCodec.writeBytes(block.older(), out);
        ValueCodec.writeVarInt(block.size(), out);
        for (int i = 0; i < block.size(); i++) {
            byte[] stored = block.storedBytes(i, codec);
            if (stored != null) {
                ValueCodec.writeVarInt(stored.length, out);
                out.write(stored);
            } else {
                // the recent entries' new ones (a block is put encoded: TimelineBlock.encoded),
                // encoded here and not kept, since the recent entries are rewritten every event
                one.clear();
                codec.writeEntry(block.entry(i), one);
                ValueCodec.writeVarInt(one.length(), out);
                out.write(one.getSharedBuffer(), 0, one.length());
            }
        }
    }

    /**
     * Reads layout 1 (without chain keys or head); {@code what} names the value in a corruption
     * message.
     */
    static TimelineBlock readBlock(StateCodec codec, DataInputView in, String what)
            throws IOException {
        byte[] older = null;
        int n = -1;
        int i = 0;
        try {
            older = ValueCodec.readBytes(in);
            n = ValueCodec.readVarInt(in);
            if (n < 1 || n > MAX_ENTRIES) {
                throw new CorruptStateException(
                        what
                                + " after sequence "
                                + CorruptStateException.hex(older)
                                + " holds "
                                + n
                                + " entries");
            }
            byte[][] entries = new byte[n][];
            for (; i < n; i++) {
                int length = ValueCodec.readVarInt(in);
                if (length < 1) { // an entry holds at least its sequence; a row may be any size
                    throw new CorruptStateException(
                            what
                                    + " after sequence "
                                    + CorruptStateException.hex(older)
                                    + ": entry "
                                    + (i + 1)
                                    + " of "
                                    + n
                                    + " has length "
                                    + length);
                }
                entries[i] = new byte[length];
                in.readFully(entries[i]);
            }
            return TimelineBlock.stored(codec, entries, older, null, null);
        } catch (EOFException e) {
            throw new CorruptStateException(
                    what
                            + " after sequence "
                            + CorruptStateException.hex(older)
                            + " ends early"
                            + (n > 0 ? ", in entry " + (i + 1) + " of " + n : ""),
                    e);
        }
    }

    @Override
    public Snapshot snapshotConfiguration() {
        Snapshot snapshot = new Snapshot();
        snapshot.describe(this);
        return snapshot;
    }

    /** The snapshot: the column types; version {@value #VERSION}. */
    public static class Snapshot extends StateValueSerializer.Snapshot<TimelineBlock> {
        public Snapshot() {
            super(
                    VERSION,
                    VERSION,
                    (types, version) -> new TimelineBlockSerializer(types),
                    Map.of("TIMELINE_BLOCK", 1));
        }
    }
}
