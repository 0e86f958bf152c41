package dev.autocdc.operators.flink.targets;

import dev.autocdc.operators.core.SequenceCodec;
import dev.autocdc.operators.core.StateCodec;
import dev.autocdc.operators.core.TimelineEntry;
import dev.autocdc.operators.flink.state.SequenceKey;
import dev.autocdc.operators.flink.state.StateAccessCounter;
import dev.autocdc.operators.flink.state.StateValueSerializer;
import dev.autocdc.operators.flink.state.TimelineBlock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * The older entries of a {@link FlinkTimeline}: the current key's blocks in a MapState, each keyed
 * by its newest sequence and linking to the next older one; the recent entries, which the caller
 * hands in, link to the newest and name the first {@link TimelineBlock#CHAIN_KEYS} of the chain
 * ({@link TimelineBlock#chainKeys}). Blocks are found by point reads along those keys and links,
 * never by a map iterator.
 *
 * <p>An event reads a block at most once ({@link #block}) and keeps its changes ({@link #change})
 * until {@link #writeChanged}; {@link #forget} drops both. A block read counts as an iterator step,
 * a block written or removed as a map write ({@link StateAccessCounter}).
 */
final class TimelineBlocks {
    private final MapState<SequenceKey, TimelineBlock> state;
    private final StateAccessCounter counter;
    private final StateCodec codec;
    private final int blockSize;

    /** The blocks the current event read, by key (ascending), as changed by it. */
    private final TreeMap<byte[], TimelineBlock> walked = new TreeMap<>(SequenceCodec::compare);

    private final List<byte[]> changed = new ArrayList<>();

    /**
     * The buffer a block's entries are encoded in when it is put ({@link TimelineBlock#encoded}),
     * kept between puts ({@link StateValueSerializer#emptied}).
     */
    private DataOutputSerializer scratch;

    TimelineBlocks(
            MapState<SequenceKey, TimelineBlock> state,
            StateAccessCounter counter,
            StateCodec codec,
            int blockSize) {
        this.state = state;
        this.counter = counter;
        this.codec = codec;
        this.blockSize = blockSize;
    }

    /** Forgets the blocks read and the changes not written (a new event, or a rewrite in place). */
    void forget() {
        walked.clear();
        changed.clear();
    }

    /** A block of the current key as this event has it (read once, then as changed). */
    TimelineBlock block(byte[] key) {
        TimelineBlock block = walked.get(key);
        if (block == null) {
            block = read(key);
            walked.put(key, block);
        }
        return block;
    }

    /**
     * Replaces a block the event has read by its changed copy, written by {@link #writeChanged}.
     */
    void change(byte[] key, TimelineBlock block) {
        walked.put(key, block);
        changed.add(key);
    }

    private TimelineBlock read(byte[] key) {
        try {
            counter.iteratorSteps++; // a block read
            TimelineBlock block = state.get(new SequenceKey(key));
            if (block == null) {
                throw new IllegalStateException("The key's history links to a missing block");
            }
            return block;
        } catch (Exception e) {
            throw new IllegalStateException("Cannot read the key's history", e);
        }
    }

    /**
     * Every block linked from {@code older} (the recent entries' link), newest first, by key, read
     * from state past the event's changes.
     */
    List<Map.Entry<byte[], TimelineBlock>> chain(byte[] older) {
        List<Map.Entry<byte[], TimelineBlock>> chain = new ArrayList<>();
        for (byte[] key = older; key != null; ) {
            TimelineBlock block = read(key);
            chain.add(Map.entry(key, block));
            key = block.older();
        }
        return chain;
    }

    /**
     * Every entry, the recent entries {@code recent} (null: none) first, then back through the
     * blocks, newest first; a block is read when the walk reaches it.
     */
    Iterator<TimelineEntry> newestFirst(TimelineBlock recent) {
        return new Iterator<>() {
            private TimelineBlock block = recent;
            private int index = recent == null ? -1 : recent.size() - 1;

            @Override
            public boolean hasNext() {
                while (index < 0) {
                    byte[] key = block == null ? null : block.older();
                    if (key == null) {
                        return false;
                    }
                    block = block(key);
                    index = block.size() - 1;
                }
                return true;
            }

            @Override
            public TimelineEntry next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                return block.entry(index--);
            }
        };
    }

    /**
     * Entries by ascending sequence from the last one before {@code sequence} (when there is one)
     * up to the recent entries {@code recent} and through them; a newer block is read only when the
     * walk reaches it.
     */
    Iterator<TimelineEntry> ascendingFrom(TimelineBlock recent, byte[] sequence) {
        Start start = start(recent, sequence);
        List<byte[]> keys = start.keys();
        return new Iterator<>() {
            /** The block to go through next; -1: the recent entries. */
            private int next = keys.size() - 1;

            private TimelineBlock block = next < 0 ? recent : block(keys.get(next));
            private int index = start.first();

            @Override
            public boolean hasNext() {
                while (index >= block.size()) {
                    if (next < 0) {
                        return false;
                    }
                    next--;
                    block = next < 0 ? recent : block(keys.get(next));
                    index = 0;
                }
                return true;
            }

            @Override
            public TimelineEntry next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                return block.entry(index++);
            }
        };
    }

    /**
     * Where an ascending walk starts: the blocks to go through, newest first, and the index to
     * start at in the oldest of them (in the recent entries when there are none).
     */
    private record Start(List<byte[]> keys, int first) {}

    /**
     * The blocks to go through, newest first, down to the one holding the last entry before the
     * sequence (or the oldest): the chain keys name the newer ones, so only that one is read (and
     * the one below it when the sequence lands before its oldest entry).
     */
    private Start start(TimelineBlock recent, byte[] sequence) {
        List<byte[]> keys = new ArrayList<>();
        if (SequenceCodec.compare(recent.oldest().sequence(), sequence) < 0
                || recent.older() == null) {
            return new Start(keys, Math.max(0, recent.lastBefore(sequence)));
        }
        List<byte[]> listed = recent.chainKeys();
        byte[] key = listed.get(0);
        keys.add(key);
        for (int i = 0; ; i++) {
            byte[] olderKey = i + 1 < listed.size() ? listed.get(i + 1) : null;
            if (olderKey != null && SequenceCodec.compare(olderKey, sequence) >= 0) {
                key = olderKey; // the block holds nothing before the sequence: skip it unread
                keys.add(key);
                continue;
            }
            TimelineBlock b = block(key);
            if (SequenceCodec.compare(b.oldest().sequence(), sequence) < 0 || b.older() == null) {
                return new Start(keys, Math.max(0, b.lastBefore(sequence)));
            }
            key = b.older();
            keys.add(key);
            if (SequenceCodec.compare(key, sequence) < 0) {
                // its newest entry is the last one before the sequence
                return new Start(keys, block(key).size() - 1);
            }
        }
    }

    /**
     * The key of the block that holds {@code sequence} (one before the recent entries' oldest),
     * read into the event's blocks: the smallest block key at or after it; null when the recent
     * entries {@code recent} do (it lies after the newest block's key). The chain keys name the
     * newest blocks, so only that block is read.
     */
    byte[] keyFor(TimelineBlock recent, byte[] sequence) {
        List<byte[]> listed = recent.chainKeys();
        byte[] found = null;
        int i = 0;
        while (i < listed.size() && SequenceCodec.compare(listed.get(i), sequence) >= 0) {
            found = listed.get(i++);
        }
        if (found == null) {
            return null;
        }
        // every listed key at or after the sequence: the block may lie further back, follow the
        // links
        while (i == listed.size()) {
            byte[] older = block(found).older();
            if (older == null || SequenceCodec.compare(older, sequence) < 0) {
                break;
            }
            found = older;
        }
        block(found);
        return found;
    }

    /**
     * Writes the blocks the event changed, each once, telling {@code split} the key of each block
     * that was written as several and the keys of its parts ({@link #write}).
     */
    void writeChanged(BiConsumer<byte[], List<byte[]>> split) throws Exception {
        for (int c = 0; c < changed.size(); c++) { // (no iterator: once per event)
            byte[] key = changed.get(c);
            TimelineBlock block = walked.get(key);
            if (block == null) {
                continue; // written already (a key is listed once per change)
            }
            List<byte[]> parts = write(key, block);
            walked.remove(key);
            if (parts.size() > 1) {
                split.accept(key, parts);
            }
        }
        changed.clear();
    }

    /**
     * Writes a block under its key, split in blocks of {@link #blockSize} when late entries grew it
     * past twice that; returns the keys written, newest first (the first is {@code key}).
     */
    List<byte[]> write(byte[] key, TimelineBlock block) throws Exception {
        if (block.size() <= 2 * blockSize) {
            counter.mapWrites++;
            scratch = StateValueSerializer.emptied(scratch);
            state.put(new SequenceKey(key), block.encoded(codec, scratch));
            return List.of(key);
        }
        // parts of blockSize from the top (which keeps the block's key), each linked to the next
        // one down
        List<byte[]> keys = new ArrayList<>();
        for (int end = block.size(); end > 0; end -= blockSize) {
            int start = Math.max(0, end - blockSize);
            byte[] older = start == 0 ? block.older() : block.entry(start - 1).sequence();
            TimelineBlock part = block.range(start, end, older);
            counter.mapWrites++;
            scratch = StateValueSerializer.emptied(scratch);
            state.put(new SequenceKey(part.newest().sequence()), part.encoded(codec, scratch));
            keys.add(part.newest().sequence());
        }
        return keys;
    }

    /** Puts a block under its key as it is (not re-encoded, never split). */
    void putAsIs(byte[] key, TimelineBlock block) throws Exception {
        counter.mapWrites++;
        state.put(new SequenceKey(key), block);
    }

    void remove(byte[] key) throws Exception {
        counter.mapWrites++;
        state.remove(new SequenceKey(key));
    }

    /**
     * Whether the chain in state linked from {@code older} starts with the keys {@code listed} (a
     * check: its reads are not counted).
     */
    boolean startsWith(byte[] older, List<byte[]> listed) throws Exception {
        byte[] key = older;
        for (int i = 0; i < listed.size(); i++) {
            if (key == null || !Arrays.equals(listed.get(i), key)) {
                return false;
            }
            TimelineBlock block = state.get(new SequenceKey(key));
            if (block == null) {
                return false;
            }
            key = block.older();
        }
        return true;
    }

    /** Forgets every block of the current key. */
    void clear() {
        state.clear();
    }
}
