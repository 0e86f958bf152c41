package dev.autocdc.operators.flink.targets;

import dev.autocdc.operators.core.BitemporalHead;
import dev.autocdc.operators.core.SequenceCodec;
import dev.autocdc.operators.core.StateCodec;
import dev.autocdc.operators.core.Timeline;
import dev.autocdc.operators.core.TimelineEntry;
import dev.autocdc.operators.flink.state.SequenceKey;
import dev.autocdc.operators.flink.state.StateAccessCounter;
import dev.autocdc.operators.flink.state.StateValueSerializer;
import dev.autocdc.operators.flink.state.TimelineBlock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.TreeMap;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * A {@link Timeline} in keyed state, in blocks of consecutive entries ({@link TimelineBlock}):
 *
 * <ul>
 *   <li>a ValueState {@code recent} holds the newest entries (at most {@link #blockSize}; the last
 *       is the head);
 *   <li>a MapState holds the older entries in blocks keyed by each block's newest sequence. Block
 *       {@code i} holds the entries after block {@code i+1}'s key up to its own key; {@code recent}
 *       holds those after the newest block's key.
 * </ul>
 *
 * Every block carries the key of the next older block, and {@code recent} the keys of the {@link
 * #TimelineBlock.CHAIN_KEYS} newest blocks (a prefix of that chain), so finding a block is point
 * reads, never a map iterator (a RocksDB seek costs tens of point reads, and the heap backend would
 * have to sort the whole map).
 *
 * <p>Why blocks: an in-order event costs one value read and one value write, plus one map write
 * every {@code blockSize} events when the recent entries move into a block, instead of a value
 * read, a value write and a map write per event. A late event reads the block it lands in ({@link
 * #ascendingFrom}: one point read among the newest blocks, a walk back from the last named one
 * beyond them), then the newer blocks only as far as the engine's refold goes, and rewrites the
 * blocks it changed. Changes are buffered for the current event and written by {@link
 * #finishEvent()}.
 */
public final class FlinkTimeline implements Timeline {
    private final ValueState<TimelineBlock> recentState;
    private final MapState<SequenceKey, TimelineBlock> blockState;
    private final StateAccessCounter counter;
    private final StateCodec codec;
    private final int blockSize;

    /** The processing time stamped on written entries; set by the operator before each event. */
    private long now;

    /** The head as last read or written for the current key. */
    private TimelineEntry lastHead;

    private boolean recentRead;
    private TimelineBlock recent;
    private boolean recentChanged;

    /** The blocks the current event read, by key (ascending), as changed by it. */
    private final TreeMap<byte[], TimelineBlock> walked = new TreeMap<>(SequenceCodec::compare);

    private final List<byte[]> changedBlocks = new ArrayList<>();

    /**
     * The buffer a block's entries are encoded in when it is put ({@link TimelineBlock#encoded}),
     * kept between puts ({@link StateValueSerializer#emptied}).
     */
    private DataOutputSerializer scratch;

    FlinkTimeline(
            ValueState<TimelineBlock> recentState,
            MapState<SequenceKey, TimelineBlock> blockState,
            StateAccessCounter counter,
            StateCodec codec,
            int blockSize) {
        this.recentState = recentState;
        this.blockState = blockState;
        this.counter = counter;
        this.codec = codec;
        this.blockSize = blockSize;
    }

    /** Starts an event (or a timer) of the current key: state is read again, at most once. */
    void beginEvent(long time) {
        now = time;
        recentRead = false;
        recent = null;
        recentChanged = false;
        walked.clear();
        changedBlocks.clear();
        lastHead = null;
    }

    private TimelineBlock recent() {
        if (!recentRead) {
            try {
                counter.valueReads++;
                recent = recentState.value();
                recentRead = true;
                lastHead = recent == null ? null : recent.newest();
            } catch (Exception e) {
                throw new IllegalStateException("Cannot read the key's recent history", e);
            }
        }
        return recent;
    }

    @Override
    public TimelineEntry head() {
        recent();
        return lastHead;
    }

    /**
     * The bitemporal head stored with the recent entries; null when none (or the key has no
     * entries).
     */
    BitemporalHead recentHead() {
        TimelineBlock r = recent();
        return r == null ? null : r.head();
    }

    /**
     * Stores a bitemporal head with the recent entries (written by {@link #finishEvent()}); returns
     * false, storing nothing, when the key has no entries to store it with.
     */
    boolean setRecentHead(BitemporalHead head) {
        TimelineBlock r = recent();
        if (r == null) {
            return false;
        }
        recent = r.withHead(head);
        recentChanged = true;
        return true;
    }

    @Override
    public Iterator<TimelineEntry> newestFirst() {
        TimelineBlock first = recent();
        return new Iterator<>() {
            private TimelineBlock block = first;
            private int index = first == null ? -1 : first.size() - 1;

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

    @Override
    public Iterator<TimelineEntry> ascendingFrom(byte[] sequence) {
        TimelineBlock r = recent();
        if (r == null) {
            return Collections.emptyIterator();
        }
        // The blocks to go through, newest first, down to the one holding the last entry before the
        // sequence (or the oldest): the chain keys name the newer ones, so only that one is read
        // (and the one below it when the sequence lands before its oldest entry).
        List<byte[]> keys = new ArrayList<>();
        int first; // the index to start at in the oldest block to go through (or in the recent
        // entries)
        if (SequenceCodec.compare(r.oldest().sequence(), sequence) < 0 || r.older() == null) {
            first = Math.max(0, r.lastBefore(sequence));
        } else {
            List<byte[]> listed = r.chainKeys();
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
                if (SequenceCodec.compare(b.oldest().sequence(), sequence) < 0
                        || b.older() == null) {
                    first = Math.max(0, b.lastBefore(sequence));
                    break;
                }
                key = b.older();
                keys.add(key);
                if (SequenceCodec.compare(key, sequence) < 0) {
                    first =
                            block(key).size()
                                    - 1; // its newest entry is the last one before the sequence
                    break;
                }
            }
        }
        return new Iterator<>() {
            private int next =
                    keys.size() - 1; // the block to go through next; -1 = the recent entries
            private TimelineBlock block = next < 0 ? r : block(keys.get(next));
            private int index = first;

            @Override
            public boolean hasNext() {
                while (index >= block.size()) {
                    if (next < 0) {
                        return false;
                    }
                    next--;
                    block =
                            next < 0
                                    ? r
                                    : block(keys.get(next)); // read only when the engine goes this
                    // far
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

    @Override
    public TimelineEntry entryAt(byte[] sequence) {
        TimelineBlock r = recent();
        if (r == null) {
            return null;
        }
        if (SequenceCodec.compare(sequence, r.oldest().sequence()) >= 0) {
            return r.entryAt(sequence);
        }
        byte[] key = blockKeyFor(sequence);
        return key == null ? null : walked.get(key).entryAt(sequence);
    }

    /** A block of the current key as this event has it (read once, then as changed). */
    private TimelineBlock block(byte[] key) {
        TimelineBlock block = walked.get(key);
        if (block == null) {
            block = readBlock(key);
            walked.put(key, block);
        }
        return block;
    }

    private TimelineBlock readBlock(byte[] key) {
        try {
            counter.iteratorSteps++; // a block read
            TimelineBlock block = blockState.get(new SequenceKey(key));
            if (block == null) {
                throw new IllegalStateException("The key's history links to a missing block");
            }
            return block;
        } catch (Exception e) {
            throw new IllegalStateException("Cannot read the key's history", e);
        }
    }

    /** Every block of the key, newest first, by key (reads the whole key). */
    private List<Map.Entry<byte[], TimelineBlock>> chain() {
        List<Map.Entry<byte[], TimelineBlock>> chain = new ArrayList<>();
        TimelineBlock r = recent();
        for (byte[] key = r == null ? null : r.older(); key != null; ) {
            TimelineBlock block = readBlock(key);
            chain.add(Map.entry(key, block));
            key = block.older();
        }
        return chain;
    }

    @Override
    public void put(TimelineEntry entry) {
        TimelineEntry stamped = entry.stampedAt(now);
        TimelineBlock r = recent();
        byte[] sequence = entry.sequence();
        // no recent entries means no blocks either: the recent entries always keep the head
        if (r != null
                && SequenceCodec.compare(sequence, r.newest().sequence()) < 0
                && SequenceCodec.compare(sequence, r.oldest().sequence()) < 0) {
            byte[] key = blockKeyFor(sequence);
            if (key != null) {
                walked.put(key, walked.get(key).with(stamped));
                changedBlocks.add(key);
                return;
            }
        }
        recent = r == null ? TimelineBlock.of(codec, stamped) : r.with(stamped);
        recentChanged = true;
        lastHead = recent.newest();
    }

    /**
     * The key of the block that holds {@code sequence} (one before the recent entries' oldest),
     * read into the event's blocks: the smallest block key at or after it; null when the recent
     * entries do (it lies after the newest block's key). The chain keys name the newest blocks, so
     * only that block is read.
     */
    private byte[] blockKeyFor(byte[] sequence) {
        List<byte[]> listed = recent().chainKeys();
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

    @Override
    public void setHead(TimelineEntry entry) {
        if (lastHead == null || !Arrays.equals(lastHead.sequence(), entry.sequence())) {
            throw new IllegalStateException("The head must be the newest entry put");
        }
    }

    /**
     * Writes what the current event changed: the recent entries (moving them into a block when
     * full) and the changed blocks.
     */
    void finishEvent() {
        try {
            for (int c = 0; c < changedBlocks.size(); c++) { // (no iterator: once per event)
                byte[] key = changedBlocks.get(c);
                TimelineBlock block = walked.get(key);
                if (block == null) {
                    continue; // written already (a key is listed once per change)
                }
                List<byte[]> parts = writeBlock(key, block);
                walked.remove(key);
                if (parts.size() > 1) {
                    addSplitKeys(key, parts);
                }
            }
            changedBlocks.clear();
            if (recentChanged) {
                if (recent.size() > blockSize) {
                    // the older entries move into a block; the newest stays, linked to it
                    TimelineBlock older =
                            recent.range(0, recent.size() - 1, recent.older()).withHead(null);
                    byte[] key = older.newest().sequence();
                    // (split, when a smaller block size than the one that wrote them is restored)
                    recent = recent.newestLinkedTo(writeBlock(key, older));
                }
                counter.valueWrites++;
                recentState.update(recent);
                recentChanged = false;
            }
            assert chainKeysAreTheChain()
                    : "the recent entries' chain keys are not the first keys of the key's chain";
        } catch (Exception e) {
            throw new IllegalStateException("Cannot write the key's history", e);
        }
    }

    /**
     * Writes a block under its key, split in blocks of {@link #blockSize} when late entries grew it
     * past twice that; returns the keys written, newest first (the first is {@code key}).
     */
    private List<byte[]> writeBlock(byte[] key, TimelineBlock block) throws Exception {
        if (block.size() <= 2 * blockSize) {
            counter.mapWrites++;
            scratch = StateValueSerializer.emptied(scratch);
            blockState.put(new SequenceKey(key), block.encoded(codec, scratch));
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
            blockState.put(new SequenceKey(part.newest().sequence()), part.encoded(codec, scratch));
            keys.add(part.newest().sequence());
        }
        return keys;
    }

    /**
     * The recent entries' chain keys after the block {@code key} was split into {@code parts}
     * (newest first).
     */
    private void addSplitKeys(byte[] key, List<byte[]> parts) {
        List<byte[]> chain = recent().chainKeys();
        for (int i = 0; i < chain.size(); i++) {
            if (Arrays.equals(chain.get(i), key)) {
                List<byte[]> updated = new ArrayList<>(chain.subList(0, i));
                updated.addAll(parts);
                updated.addAll(chain.subList(i + 1, chain.size()));
                recent =
                        recent.withChainKeys(
                                updated.subList(
                                        0, Math.min(updated.size(), TimelineBlock.CHAIN_KEYS)));
                recentChanged = true;
                return;
            }
        }
    }

    /** Every entry, ascending (for retention: reads the whole key). */
    List<TimelineEntry> ascending() {
        List<TimelineEntry> all = new ArrayList<>();
        List<Map.Entry<byte[], TimelineBlock>> chain = chain();
        for (int i = chain.size() - 1; i >= 0; i--) {
            all.addAll(chain.get(i).getValue().entries());
        }
        if (recent() != null) {
            all.addAll(recent.entries());
        }
        return all;
    }

    /** Drops every entry before {@code floor} (at or before the head) and writes the result. */
    void removeBefore(byte[] floor) throws Exception {
        walked.clear(); // the blocks below are written here, not through the current event's cache
        TimelineBlock r = recent();
        if (r == null) {
            return;
        }
        List<Map.Entry<byte[], TimelineBlock>> chain = chain();
        // the first block (newest first; -1 = recent) that holds an entry before the floor: it is
        // cut, every older block goes, and the youngest survivor becomes the oldest block (no link)
        int cut = SequenceCodec.compare(r.oldest().sequence(), floor) < 0 ? -1 : chain.size();
        for (int i = 0; i < chain.size() && cut == chain.size(); i++) {
            if (SequenceCodec.compare(chain.get(i).getValue().oldest().sequence(), floor) < 0) {
                cut = i;
            }
        }
        if (cut == chain.size()) {
            return; // nothing before the floor
        }
        for (int i = Math.max(cut + 1, 0); i < chain.size(); i++) {
            counter.mapWrites++;
            blockState.remove(new SequenceKey(chain.get(i).getKey()));
        }
        if (cut == -1) {
            // the floor is at or before the head: never empty
            recent = r.from(floor).withOlder(null);
            counter.valueWrites++;
            recentState.update(recent);
            return;
        }
        TimelineBlock kept = chain.get(cut).getValue().from(floor);
        counter.mapWrites++;
        int survivors; // blocks left, newest first
        if (kept != null) {
            blockState.put(new SequenceKey(chain.get(cut).getKey()), kept.withOlder(null));
            survivors = cut + 1;
        } else {
            blockState.remove(new SequenceKey(chain.get(cut).getKey()));
            survivors = cut;
            if (cut > 0) {
                Map.Entry<byte[], TimelineBlock> newer = chain.get(cut - 1);
                counter.mapWrites++;
                blockState.put(new SequenceKey(newer.getKey()), newer.getValue().withOlder(null));
            }
        }
        // the recent entries may name removed blocks among their chain keys
        List<byte[]> listed = r.chainKeys();
        if (listed.size() > survivors) {
            recent = r.withChainKeys(listed.subList(0, survivors));
            counter.valueWrites++;
            recentState.update(recent);
        }
        assert chainKeysAreTheChain()
                : "the recent entries' chain keys are not the first keys of the key's chain after"
                        + " pruning";
    }

    /**
     * Checked in test builds (-ea): the recent entries' chain keys are the first keys of the chain,
     * in state.
     */
    private boolean chainKeysAreTheChain() throws Exception {
        if (!recentRead || recent == null) {
            return true;
        }
        List<byte[]> listed = recent.chainKeys();
        byte[] key = recent.older();
        for (int i = 0; i < listed.size(); i++) {
            if (key == null || !Arrays.equals(listed.get(i), key)) {
                return false;
            }
            TimelineBlock block =
                    blockState.get(
                            new SequenceKey(key)); // not counted: a check, not the engine's work
            if (block == null) {
                return false;
            }
            key = block.older();
        }
        return true;
    }

    /** Forgets the key's whole history. */
    void clear() {
        recentState.clear();
        blockState.clear();
        recent = null;
        lastHead = null;
    }
}
