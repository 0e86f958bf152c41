package dev.autocdc.operators.flink;

import dev.autocdc.operators.core.BitemporalHead;
import dev.autocdc.operators.core.SequenceCodec;
import dev.autocdc.operators.core.StateCodec;
import dev.autocdc.operators.core.TimelineEntry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * Consecutive timeline entries of one key, ascending by sequence, stored as one state value (see
 * {@link FlinkTimeline}). Its content never changes: every change returns a new block that shares the
 * untouched entries.
 *
 * <p>Each entry read from state is kept as its encoded bytes and decoded only when the engine asks for
 * it (the decoded form is then cached: a one-time, idempotent fill that any thread may race on and see
 * the same value); an unchanged entry is written back as the same bytes. A block of four entries costs
 * one decode and one encode when one entry changes.
 */
final class TimelineBlock {
    private final StateCodec codec;
    private final Slot[] slots;
    /** The key of the next older block of the key (its newest sequence); null when this is the oldest. */
    private final byte[] older;
    /**
     * Small per-key facts stored with the recent entries, so that reading them costs no state access of its
     * own (the bitemporal head); null when none. Only the recent entries' serializer writes it.
     */
    private final BitemporalHead head;

    private TimelineBlock(StateCodec codec, Slot[] slots, byte[] older, BitemporalHead head) {
        this.codec = codec;
        this.slots = slots;
        this.older = older;
        this.head = head;
    }

    private TimelineBlock(StateCodec codec, Slot[] slots, byte[] older) {
        this(codec, slots, older, null);
    }

    static TimelineBlock of(StateCodec codec, TimelineEntry entry) {
        return new TimelineBlock(codec, new Slot[] {new Slot(null, entry)}, null);
    }

    /** The bitemporal head stored with these (recent) entries; null when none. */
    BitemporalHead head() {
        return head;
    }

    /** This block with another bitemporal head. */
    TimelineBlock withHead(BitemporalHead h) {
        return new TimelineBlock(codec, slots, older, h);
    }

    /** The key of the next older block; null when there is none. */
    byte[] older() {
        return older;
    }

    /** This block linked to another next older block (null: none). */
    TimelineBlock withOlder(byte[] key) {
        return new TimelineBlock(codec, slots, key, head);
    }

    int size() {
        return slots.length;
    }

    TimelineEntry entry(int i) {
        Slot s = slots[i];
        if (s.entry == null) {
            try {
                s.entry = codec.readEntry(new DataInputDeserializer(s.bytes));
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot decode a timeline entry", e);
            }
        }
        return s.entry;
    }

    TimelineEntry newest() {
        return entry(slots.length - 1);
    }

    TimelineEntry oldest() {
        return entry(0);
    }

    /** This block with {@code entry} added, or replacing the entry at its sequence. */
    TimelineBlock with(TimelineEntry entry) {
        if (SequenceCodec.compare(newest().sequence(), entry.sequence()) < 0) {
            // the in-order case: append without decoding the other entries
            Slot[] copy = Arrays.copyOf(slots, slots.length + 1);
            copy[slots.length] = new Slot(null, entry);
            return new TimelineBlock(codec, copy, older, head);
        }
        int lo = 0;
        int hi = slots.length - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int c = SequenceCodec.compare(entry(mid).sequence(), entry.sequence());
            if (c == 0) {
                Slot[] copy = slots.clone();
                copy[mid] = new Slot(null, entry);
                return new TimelineBlock(codec, copy, older, head);
            } else if (c < 0) {
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        Slot[] copy = new Slot[slots.length + 1];
        System.arraycopy(slots, 0, copy, 0, lo);
        copy[lo] = new Slot(null, entry);
        System.arraycopy(slots, lo, copy, lo + 1, slots.length - lo);
        return new TimelineBlock(codec, copy, older, head);
    }

    /** The entries from {@code from} (inclusive) to {@code to} (exclusive), as a block linked to {@code older}. */
    TimelineBlock range(int from, int to, byte[] older) {
        return new TimelineBlock(codec, Arrays.copyOfRange(slots, from, to), older, head);
    }

    /** This block without the entries before {@code floor}; null when none is left. */
    TimelineBlock from(byte[] floor) {
        int first = 0;
        while (first < slots.length && SequenceCodec.compare(entry(first).sequence(), floor) < 0) {
            first++;
        }
        return first == slots.length ? null : first == 0 ? this : range(first, slots.length, older);
    }

    List<TimelineEntry> entries() {
        List<TimelineEntry> all = new ArrayList<>(slots.length);
        for (int i = 0; i < slots.length; i++) {
            all.add(entry(i));
        }
        return all;
    }

    void write(org.apache.flink.core.memory.DataOutputView out) throws IOException {
        StateCodec.writeBytes(older, out);
        StateCodec.writeVarInt(slots.length, out);
        DataOutputSerializer one = null;
        for (Slot s : slots) {
            if (s.bytes != null) {
                StateCodec.writeVarInt(s.bytes.length, out);
                out.write(s.bytes);
            } else {
                // encoded here and not kept: a block is written once (RocksDB) or only at checkpoints (heap)
                if (one == null) {
                    one = new DataOutputSerializer(64);
                }
                one.clear();
                codec.writeEntry(s.entry, one);
                StateCodec.writeVarInt(one.length(), out);
                out.write(one.getSharedBuffer(), 0, one.length());
            }
        }
    }

    /** The recent entries of a bitemporal belief: the head (present or not), then the block. */
    void writeWithHead(org.apache.flink.core.memory.DataOutputView out) throws IOException {
        out.writeBoolean(head != null);
        if (head != null) {
            codec.writeHead(head, out);
        }
        write(out);
    }

    static TimelineBlock readWithHead(StateCodec codec, org.apache.flink.core.memory.DataInputView in) throws IOException {
        BitemporalHead h = in.readBoolean() ? codec.readHead(in) : null;
        return read(codec, in).withHead(h);
    }

    static TimelineBlock read(StateCodec codec, org.apache.flink.core.memory.DataInputView in) throws IOException {
        byte[] older = StateCodec.readBytes(in);
        int n = StateCodec.readVarInt(in);
        Slot[] slots = new Slot[n];
        for (int i = 0; i < n; i++) {
            byte[] bytes = new byte[StateCodec.readVarInt(in)];
            in.readFully(bytes);
            slots[i] = new Slot(bytes, null);
        }
        return new TimelineBlock(codec, slots, older);
    }

    /** One entry: its encoded bytes, its decoded form, or both once either was needed. */
    private static final class Slot {
        private byte[] bytes;
        private TimelineEntry entry;

        Slot(byte[] bytes, TimelineEntry entry) {
            this.bytes = bytes;
            this.entry = entry;
        }
    }
}
