package dev.autocdc.operators.flink.state;

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
 * {@code FlinkTimeline}). Its content never changes: every change returns a new block with copies
 * of its arrays, which hold the untouched entries' bytes and decoded forms.
 *
 * <p>Each entry read from state is kept as its encoded bytes and decoded only when the engine asks
 * for it (the decoded form is then cached in the block's array, which the blocks that only relink
 * it share: a one-time, idempotent fill that any thread may race on and see the same value; a copy
 * made before the fill may decode the entry again); an unchanged entry is written back as the same
 * bytes. A block of four entries costs one decode and one encode when one entry changes. Its byte
 * layouts are those of {@link TimelineBlockSerializer}, {@link RecentEntriesSerializer} and {@link
 * BitemporalRecentSerializer}.
 */
public final class TimelineBlock {
    /**
     * How many keys of the newest blocks the recent entries keep (the first is their link to the
     * next older block), so that a late event reads the block it lands in without the newer ones:
     * with blocks of 4, events up to about 16 entries back. Each key after the first costs a few
     * bytes (prefix-coded).
     */
    public static final int CHAIN_KEYS = 4;

    private final StateCodec codec;

    /**
     * The entries' stored bytes, index by index with {@link #entries}: null for an entry made in
     * this run rather than read from state, until the block is put into the map ({@link #encoded});
     * the recent entries' serializer encodes such an entry without keeping its bytes. Never changed
     * after construction (a change copies the arrays).
     */
    private final byte[][] bytes;

    /**
     * The entries decoded: filled in when first asked for (the cache described above; the only
     * writes after construction), given for an entry made in this run.
     */
    private final TimelineEntry[] entries;

    /**
     * The key of the next older block of the key (its newest sequence); null when this is the
     * oldest.
     */
    private final byte[] older;

    /**
     * The recent entries only: the keys of the blocks after {@link #older} in the chain, newest
     * first (at most {@link #CHAIN_KEYS} - 1), so a late event can read the block it lands in
     * without reading the newer ones. Always a prefix of the chain; empty for a block in the map.
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
            StateCodec codec,
            byte[][] bytes,
            TimelineEntry[] entries,
            byte[] older,
            byte[][] further,
            BitemporalHead head) {
        this.codec = codec;
        this.bytes = bytes;
        this.entries = entries;
        this.older = older;
        this.further = older == null ? NONE : further;
        this.head = head;
    }

    public static TimelineBlock of(StateCodec codec, TimelineEntry entry) {
        return new TimelineBlock(
                codec, new byte[1][], new TimelineEntry[] {entry}, null, NONE, null);
    }

    /** The bitemporal head stored with these (recent) entries; null when none. */
    public BitemporalHead head() {
        return head;
    }

    /** This block with another bitemporal head. */
    public TimelineBlock withHead(BitemporalHead h) {
        return new TimelineBlock(codec, bytes, entries, older, further, h);
    }

    /** The key of the next older block; null when there is none. */
    public byte[] older() {
        return older;
    }

    /** This block linked to another next older block (null: none), with no further chain keys. */
    public TimelineBlock withOlder(byte[] key) {
        return new TimelineBlock(codec, bytes, entries, key, NONE, head);
    }

    /**
     * The keys of the next older blocks that this (recent) block knows, newest first: {@link
     * #older()}, then the further ones.
     */
    public List<byte[]> chainKeys() {
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
    public TimelineBlock withChainKeys(List<byte[]> keys) {
        return keys.isEmpty()
                ? withOlder(null)
                : new TimelineBlock(
                        codec,
                        bytes,
                        entries,
                        keys.get(0),
                        keys.subList(1, keys.size()).toArray(new byte[0][]),
                        head);
    }

    /**
     * This (recent) block's newest entry alone, after its older entries moved into blocks keyed
     * {@code written} (newest first): linked to those, then to the chain this block knew, at most
     * {@link #CHAIN_KEYS} keys in all. {@code withChainKeys} of those keys, built without a list
     * (once per block size events).
     */
    public TimelineBlock newestLinkedTo(List<byte[]> written) {
        int known = older == null ? 0 : 1 + further.length;
        int n = Math.min(CHAIN_KEYS, written.size() + known);
        byte[][] rest = n == 1 ? NONE : new byte[n - 1][];
        for (int i = 1; i < n; i++) {
            int j = i - written.size();
            rest[i - 1] = j < 0 ? written.get(i) : j == 0 ? older : further[j - 1];
        }
        int last = bytes.length - 1;
        return new TimelineBlock(
                codec,
                new byte[][] {bytes[last]},
                new TimelineEntry[] {entries[last]},
                written.get(0),
                rest,
                head);
    }

    /**
     * This block with every entry as its bytes written by {@code writer} and none decoded: the form
     * a block is put into the map in. On the heap backend the object put is what stays in memory
     * for the key's whole history, and a decoded entry (its row, boxed values, event list) takes
     * several times its bytes; on RocksDB the serializer then copies the bytes instead of encoding
     * the entries. {@code scratch} is an empty buffer the entries are encoded in.
     */
    public TimelineBlock encoded(StateCodec writer, DataOutputSerializer scratch) {
        byte[][] b = new byte[bytes.length][];
        for (int i = 0; i < b.length; i++) {
            b[i] = storedBytes(i, writer);
            if (b[i] == null) {
                scratch.clear();
                try {
                    writer.writeEntry(entry(i), scratch);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                b[i] = scratch.getCopyOfBuffer();
            }
        }
        return new TimelineBlock(writer, b, new TimelineEntry[b.length], older, further, head);
    }

    /**
     * Whether every entry has its stored bytes: a block read from state, or put ({@link #encoded}).
     */
    public boolean allStored() {
        for (byte[] b : bytes) {
            if (b == null) {
                return false;
            }
        }
        return true;
    }

    /** The index of the last entry before {@code sequence}; -1 when none is. */
    public int lastBefore(byte[] sequence) {
        int lo = 0;
        int hi = bytes.length - 1;
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
    public TimelineEntry entryAt(byte[] sequence) {
        int i = lastBefore(sequence) + 1;
        return i < bytes.length && Arrays.equals(entry(i).sequence(), sequence) ? entry(i) : null;
    }

    public int size() {
        return bytes.length;
    }

    public TimelineEntry entry(int i) {
        TimelineEntry decoded = entries[i];
        if (decoded == null) {
            try {
                decoded = codec.readEntry(new DataInputDeserializer(bytes[i]));
                entries[i] = decoded;
            } catch (IOException | RuntimeException e) {
                throw new UncheckedIOException(
                        new CorruptStateException(
                                "entry "
                                        + (i + 1)
                                        + " of "
                                        + bytes.length
                                        + " of a block after sequence "
                                        + CorruptStateException.hex(older)
                                        + " does not decode: "
                                        + e,
                                e));
            }
        }
        return decoded;
    }

    public TimelineEntry newest() {
        return entry(bytes.length - 1);
    }

    public TimelineEntry oldest() {
        return entry(0);
    }

    /** This block with {@code entry} added, or replacing the entry at its sequence. */
    public TimelineBlock with(TimelineEntry entry) {
        if (SequenceCodec.compare(newest().sequence(), entry.sequence()) < 0) {
            // the in-order case: append without decoding the other entries
            int n = bytes.length;
            TimelineEntry[] e = Arrays.copyOf(entries, n + 1);
            e[n] = entry;
            return new TimelineBlock(codec, Arrays.copyOf(bytes, n + 1), e, older, further, head);
        }
        int lo = 0;
        int hi = bytes.length - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int c = SequenceCodec.compare(entry(mid).sequence(), entry.sequence());
            if (c == 0) {
                byte[][] b = bytes.clone();
                b[mid] = null;
                TimelineEntry[] e = entries.clone();
                e[mid] = entry;
                return new TimelineBlock(codec, b, e, older, further, head);
            } else if (c < 0) {
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        int n = bytes.length;
        byte[][] b = new byte[n + 1][];
        System.arraycopy(bytes, 0, b, 0, lo);
        System.arraycopy(bytes, lo, b, lo + 1, n - lo);
        TimelineEntry[] e = new TimelineEntry[n + 1];
        System.arraycopy(entries, 0, e, 0, lo);
        e[lo] = entry;
        System.arraycopy(entries, lo, e, lo + 1, n - lo);
        return new TimelineBlock(codec, b, e, older, further, head);
    }

    /**
     * The entries from {@code from} (inclusive) to {@code to} (exclusive), as a block linked to
     * {@code older} (no further chain keys).
     */
    public TimelineBlock range(int from, int to, byte[] older) {
        return new TimelineBlock(
                codec,
                Arrays.copyOfRange(bytes, from, to),
                Arrays.copyOfRange(entries, from, to),
                older,
                NONE,
                head);
    }

    /** This block without the entries before {@code floor}; null when none is left. */
    public TimelineBlock from(byte[] floor) {
        int first = 0;
        while (first < bytes.length && SequenceCodec.compare(entry(first).sequence(), floor) < 0) {
            first++;
        }
        return first == bytes.length
                ? null
                : first == 0
                        ? this
                        : new TimelineBlock(
                                codec,
                                Arrays.copyOfRange(bytes, first, bytes.length),
                                Arrays.copyOfRange(entries, first, entries.length),
                                older,
                                further,
                                head);
    }

    public List<TimelineEntry> entries() {
        List<TimelineEntry> all = new ArrayList<>(bytes.length);
        for (int i = 0; i < bytes.length; i++) {
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
        return codec == writer || codec.sameColumns(writer) ? bytes[i] : null;
    }

    /** The further chain keys (the recent entries only; see {@link #chainKeys()}). */
    byte[][] furtherChainKeys() {
        return further;
    }

    /**
     * This (recent) block with the keys of the blocks after {@link #older()}, as read from state.
     */
    TimelineBlock withFurtherChainKeys(byte[][] keys) {
        return new TimelineBlock(codec, bytes, entries, older, keys, head);
    }

    /**
     * A block as read from state, which takes {@code entries} as its own: its entries as stored
     * bytes, decoded when first asked for (see {@link TimelineBlockSerializer} for the layouts).
     */
    public static TimelineBlock stored(
            StateCodec codec,
            byte[][] entries,
            byte[] older,
            byte[][] further,
            BitemporalHead head) {
        return new TimelineBlock(
                codec,
                entries,
                new TimelineEntry[entries.length],
                older,
                further == null ? NONE : further,
                head);
    }
}
