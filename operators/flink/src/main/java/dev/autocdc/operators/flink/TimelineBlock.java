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

/**
 * Consecutive timeline entries of one key, ascending by sequence, stored as one state value (see
 * {@link FlinkTimeline}). Its content never changes: every change returns a new block that shares
 * the untouched entries.
 *
 * <p>Each entry read from state is kept as its encoded bytes and decoded only when the engine asks
 * for it (the decoded form is then cached: a one-time, idempotent fill that any thread may race on
 * and see the same value); an unchanged entry is written back as the same bytes. A block of four
 * entries costs one decode and one encode when one entry changes. Its byte layouts are those of
 * {@link TimelineBlockSerializer}, {@link RecentEntriesSerializer} and {@link
 * BitemporalRecentSerializer}.
 */
final class TimelineBlock {
    private final StateCodec codec;
    private final Slot[] slots;

    /**
     * The key of the next older block of the key (its newest sequence); null when this is the
     * oldest.
     */
    private final byte[] older;

    /**
     * The recent entries only: the keys of the blocks after {@link #older} in the chain, newest
     * first (at most {@link FlinkTimeline#CHAIN_KEYS} - 1), so a late event can read the block it
     * lands in without reading the newer ones. Always a prefix of the chain; empty for a block in
     * the map.
     */
    private final byte[][] further;

    /**
     * Small per-key facts stored with the recent entries, so that reading them costs no state
     * access of its own (the bitemporal head); null when none. Only the recent entries' serializer
     * writes it.
     */
    private final BitemporalHead head;

    private static final byte[][] NONE = new byte[0][];

    private TimelineBlock(
            StateCodec codec, Slot[] slots, byte[] older, byte[][] further, BitemporalHead head) {
        this.codec = codec;
        this.slots = slots;
        this.older = older;
        this.further = older == null ? NONE : further;
        this.head = head;
    }

    private TimelineBlock(StateCodec codec, Slot[] slots, byte[] older) {
        this(codec, slots, older, NONE, null);
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
        return new TimelineBlock(codec, slots, older, further, h);
    }

    /** The key of the next older block; null when there is none. */
    byte[] older() {
        return older;
    }

    /** This block linked to another next older block (null: none), with no further chain keys. */
    TimelineBlock withOlder(byte[] key) {
        return new TimelineBlock(codec, slots, key, NONE, head);
    }

    /**
     * The keys of the next older blocks that this (recent) block knows, newest first: {@link
     * #older()}, then the further ones.
     */
    List<byte[]> chainKeys() {
        List<byte[]> keys = new ArrayList<>(1 + further.length);
        if (older != null) {
            keys.add(older);
            keys.addAll(Arrays.asList(further));
        }
        return keys;
    }

    /**
     * This block with the keys of the next older blocks, newest first (the first is {@link
     * #older()}).
     */
    TimelineBlock withChainKeys(List<byte[]> keys) {
        return keys.isEmpty()
                ? withOlder(null)
                : new TimelineBlock(
                        codec,
                        slots,
                        keys.get(0),
                        keys.subList(1, keys.size()).toArray(new byte[0][]),
                        head);
    }

    /** The index of the last entry before {@code sequence}; -1 when none is. */
    int lastBefore(byte[] sequence) {
        int lo = 0;
        int hi = slots.length - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (SequenceCodec.compare(entry(mid).sequence(), sequence) < 0) {
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return lo - 1;
    }

    /** The entry at {@code sequence}; null when none is. */
    TimelineEntry entryAt(byte[] sequence) {
        int i = lastBefore(sequence) + 1;
        return i < slots.length && Arrays.equals(entry(i).sequence(), sequence) ? entry(i) : null;
    }

    int size() {
        return slots.length;
    }

    TimelineEntry entry(int i) {
        Slot s = slots[i];
        if (s.entry == null) {
            try {
                s.entry = codec.readEntry(new DataInputDeserializer(s.bytes));
            } catch (IOException | RuntimeException e) {
                throw new UncheckedIOException(
                        new CorruptStateException(
                                "entry "
                                        + (i + 1)
                                        + " of "
                                        + slots.length
                                        + " of a block after sequence "
                                        + CorruptStateException.hex(older)
                                        + " does not decode: "
                                        + e,
                                e));
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
            return new TimelineBlock(codec, copy, older, further, head);
        }
        int lo = 0;
        int hi = slots.length - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int c = SequenceCodec.compare(entry(mid).sequence(), entry.sequence());
            if (c == 0) {
                Slot[] copy = slots.clone();
                copy[mid] = new Slot(null, entry);
                return new TimelineBlock(codec, copy, older, further, head);
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
        return new TimelineBlock(codec, copy, older, further, head);
    }

    /**
     * The entries from {@code from} (inclusive) to {@code to} (exclusive), as a block linked to
     * {@code older} (no further chain keys).
     */
    TimelineBlock range(int from, int to, byte[] older) {
        return new TimelineBlock(codec, Arrays.copyOfRange(slots, from, to), older, NONE, head);
    }

    /** This block without the entries before {@code floor}; null when none is left. */
    TimelineBlock from(byte[] floor) {
        int first = 0;
        while (first < slots.length && SequenceCodec.compare(entry(first).sequence(), floor) < 0) {
            first++;
        }
        return first == slots.length
                ? null
                : first == 0
                        ? this
                        : new TimelineBlock(
                                codec,
                                Arrays.copyOfRange(slots, first, slots.length),
                                older,
                                further,
                                head);
    }

    List<TimelineEntry> entries() {
        List<TimelineEntry> all = new ArrayList<>(slots.length);
        for (int i = 0; i < slots.length; i++) {
            all.add(entry(i));
        }
        return all;
    }

    /**
     * The stored bytes of entry {@code i}, when {@code writer} writes them the same; null when the
     * entry was made by this build and not yet written, or was read with other columns (a restore
     * that added columns: the entry is written again with the current ones).
     */
    byte[] storedBytes(int i, StateCodec writer) {
        return codec == writer || codec.sameColumns(writer) ? slots[i].bytes : null;
    }

    /** The further chain keys (the recent entries only; see {@link #chainKeys()}). */
    byte[][] furtherChainKeys() {
        return further;
    }

    /**
     * This (recent) block with the keys of the blocks after {@link #older()}, as read from state.
     */
    TimelineBlock withFurtherChainKeys(byte[][] keys) {
        return new TimelineBlock(codec, slots, older, keys, head);
    }

    /**
     * A block as read from state: its entries as stored bytes, decoded when first asked for (see
     * {@link TimelineBlockSerializer} for the layouts).
     */
    static TimelineBlock stored(
            StateCodec codec,
            byte[][] entries,
            byte[] older,
            byte[][] further,
            BitemporalHead head) {
        Slot[] slots = new Slot[entries.length];
        for (int i = 0; i < entries.length; i++) {
            slots[i] = new Slot(entries[i], null);
        }
        return new TimelineBlock(codec, slots, older, further == null ? NONE : further, head);
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
