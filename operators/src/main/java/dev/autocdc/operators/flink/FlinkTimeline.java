package dev.autocdc.operators.flink;

import dev.autocdc.operators.core.SequenceCodec;
import dev.autocdc.operators.core.StateCodec;
import dev.autocdc.operators.core.Timeline;
import dev.autocdc.operators.core.TimelineEntry;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.TreeMap;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;

/**
 * A {@link Timeline} in keyed state, in blocks of consecutive entries ({@link TimelineBlock}):
 * <ul>
 *   <li>a ValueState {@code recent} holds the newest entries (at most {@link #blockSize}; the last is
 *       the head);</li>
 *   <li>a MapState holds the older entries in blocks keyed by each block's newest sequence, with keys
 *       that serialize newest-first ({@link DescendingSequenceKeySerializer}). Block {@code i} holds the
 *       entries after block {@code i+1}'s key up to its own key; {@code recent} holds those after the
 *       newest block's key.</li>
 * </ul>
 *
 * <p>Why blocks: an in-order event then costs one value read and one value write, plus one map write
 * every {@code blockSize} events when the recent entries move into a block, instead of a value read, a
 * value write and a map write per event. A late event reads the blocks from the newest back to the one
 * it lands in, and rewrites the blocks it changed. Changes are buffered for the current event and
 * written by {@link #finishEvent()}.
 *
 * <p>On a backend that iterates in key order the walk back reads only the blocks it needs; on the heap
 * backend it reads all and sorts.
 */
final class FlinkTimeline implements Timeline {
    /** Recent entries kept before they move into a block, and the size of a block. */
    static final int DEFAULT_BLOCK_SIZE = 8;

    private final ValueState<TimelineBlock> recentState;
    private final MapState<SequenceKey, TimelineBlock> blockState;
    private final boolean ordered;
    private final StateAccessCounter counter;
    private final StateCodec codec;
    private final int blockSize;

    /** The processing time stamped on written entries; set by the operator before each event. */
    private long now;
    /** The head as last read or written for the current key. */
    TimelineEntry lastHead;

    private boolean recentRead;
    private TimelineBlock recent;
    private boolean recentChanged;
    /** The blocks the current event read, by key (ascending), as changed by it. */
    private final TreeMap<byte[], TimelineBlock> walked = new TreeMap<>(SequenceCodec::compare);
    private final List<byte[]> changedBlocks = new ArrayList<>();
    /** Whether the walk read every block of the key. */
    private boolean walkedAll;

    FlinkTimeline(ValueState<TimelineBlock> recentState, MapState<SequenceKey, TimelineBlock> blockState, boolean ordered,
                  StateAccessCounter counter, StateCodec codec, int blockSize) {
        this.recentState = recentState;
        this.blockState = blockState;
        this.ordered = ordered;
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
        walkedAll = false;
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

    @Override
    public Iterator<TimelineEntry> newestFirst() {
        TimelineBlock first = recent();
        return new Iterator<>() {
            private TimelineBlock block = first;
            private int index = first == null ? -1 : first.size() - 1;
            /** Opened only when the walk goes past the recent entries. */
            private Iterator<Map.Entry<SequenceKey, TimelineBlock>> blocks;

            @Override
            public boolean hasNext() {
                while (index < 0) {
                    if (blocks == null) {
                        blocks = blocksNewestFirst();
                    }
                    if (!blocks.hasNext()) {
                        walkedAll = true;
                        return false;
                    }
                    Map.Entry<SequenceKey, TimelineBlock> next = blocks.next();
                    counter.iteratorSteps++;
                    block = walked.computeIfAbsent(next.getKey().bytes(), k -> next.getValue());
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

    private Iterator<Map.Entry<SequenceKey, TimelineBlock>> blocksNewestFirst() {
        try {
            if (ordered) {
                return blockState.entries().iterator();
            }
            List<Map.Entry<SequenceKey, TimelineBlock>> all = new ArrayList<>();
            for (Map.Entry<SequenceKey, TimelineBlock> e : blockState.entries()) {
                all.add(Map.entry(e.getKey(), e.getValue()));
            }
            all.sort((a, b) -> SequenceCodec.compare(b.getKey().bytes(), a.getKey().bytes()));
            return all.iterator();
        } catch (Exception e) {
            throw new IllegalStateException("Cannot read the key's history", e);
        }
    }

    @Override
    public void put(TimelineEntry entry) {
        TimelineEntry stamped = entry.stampedAt(now);
        TimelineBlock r = recent();
        byte[] sequence = entry.sequence();
        // no recent entries means no blocks either: the recent entries always keep the head
        if (r != null && SequenceCodec.compare(sequence, r.newest().sequence()) < 0
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

    /** The key of the block that holds {@code sequence}; null when the recent entries do. */
    private byte[] blockKeyFor(byte[] sequence) {
        // every block whose key is at or after the sequence must have been read: walk on if needed
        if (!walkedAll && (walked.isEmpty() || SequenceCodec.compare(walked.firstEntry().getValue().oldest().sequence(),
                sequence) >= 0)) {
            for (Iterator<TimelineEntry> it = newestFirst(); it.hasNext(); ) {
                if (SequenceCodec.compare(it.next().sequence(), sequence) < 0) {
                    break;
                }
            }
        }
        return walked.ceilingKey(sequence);
    }

    @Override
    public void setHead(TimelineEntry entry) {
        if (lastHead == null || !java.util.Arrays.equals(lastHead.sequence(), entry.sequence())) {
            throw new IllegalStateException("The head must be the newest entry put");
        }
    }

    /** Writes what the current event changed: the recent entries (moving them into a block when full) and the changed blocks. */
    void finishEvent() {
        try {
            for (byte[] key : changedBlocks) {
                TimelineBlock block = walked.get(key);
                if (block == null) {
                    continue; // written already (a key is listed once per change)
                }
                writeBlock(key, block);
                walked.remove(key);
            }
            changedBlocks.clear();
            if (recentChanged) {
                if (recent.size() > blockSize) {
                    // the older entries move into a block; the newest stays
                    TimelineBlock older = recent.range(0, recent.size() - 1);
                    writeBlock(older.newest().sequence(), older);
                    recent = recent.range(recent.size() - 1, recent.size());
                }
                counter.valueWrites++;
                recentState.update(recent);
                recentChanged = false;
            }
        } catch (Exception e) {
            throw new IllegalStateException("Cannot write the key's history", e);
        }
    }

    /** Writes a block under its key, split in blocks of {@link #blockSize} when late entries grew it past twice that. */
    private void writeBlock(byte[] key, TimelineBlock block) throws Exception {
        if (block.size() <= 2 * blockSize) {
            counter.mapWrites++;
            blockState.put(new SequenceKey(key), block);
            return;
        }
        for (int end = block.size(); end > 0; end -= blockSize) {
            TimelineBlock part = block.range(Math.max(0, end - blockSize), end);
            counter.mapWrites++;
            blockState.put(new SequenceKey(part.newest().sequence()), part); // the top part keeps the block's key
        }
    }

    /** Every entry, ascending (for retention: reads the whole key). */
    List<TimelineEntry> ascending() throws Exception {
        List<TimelineEntry> all = new ArrayList<>();
        List<Map.Entry<SequenceKey, TimelineBlock>> blocks = new ArrayList<>();
        for (Iterator<Map.Entry<SequenceKey, TimelineBlock>> it = blocksNewestFirst(); it.hasNext(); ) {
            blocks.add(it.next());
        }
        for (int i = blocks.size() - 1; i >= 0; i--) {
            all.addAll(blocks.get(i).getValue().entries());
        }
        if (recent() != null) {
            all.addAll(recent.entries());
        }
        return all;
    }

    /** Drops every entry before {@code floor} (at or before the head) and writes the result. */
    void removeBefore(byte[] floor) throws Exception {
        List<Map.Entry<SequenceKey, TimelineBlock>> blocks = new ArrayList<>();
        for (Iterator<Map.Entry<SequenceKey, TimelineBlock>> it = blocksNewestFirst(); it.hasNext(); ) {
            blocks.add(it.next());
        }
        for (Map.Entry<SequenceKey, TimelineBlock> e : blocks) {
            TimelineBlock kept = e.getValue().from(floor);
            if (kept == null) {
                counter.mapWrites++;
                blockState.remove(e.getKey());
            } else if (kept != e.getValue()) {
                counter.mapWrites++;
                blockState.put(e.getKey(), kept);
            }
        }
        TimelineBlock r = recent();
        if (r != null) {
            TimelineBlock kept = r.from(floor);
            if (kept != r) {
                recent = kept;
                if (kept == null) {
                    recentState.clear();
                } else {
                    counter.valueWrites++;
                    recentState.update(kept);
                }
            }
        }
    }

    /** Forgets the key's whole history. */
    void clear() {
        recentState.clear();
        blockState.clear();
        recent = null;
        lastHead = null;
    }
}
