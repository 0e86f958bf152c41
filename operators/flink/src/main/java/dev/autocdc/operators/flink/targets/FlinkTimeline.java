package dev.autocdc.operators.flink.targets;

import dev.autocdc.operators.core.BitemporalHead;
import dev.autocdc.operators.core.SequenceCodec;
import dev.autocdc.operators.core.StateCodec;
import dev.autocdc.operators.core.Timeline;
import dev.autocdc.operators.core.TimelineEntry;
import dev.autocdc.operators.flink.state.SequenceKey;
import dev.autocdc.operators.flink.state.StateAccessCounter;
import dev.autocdc.operators.flink.state.TimelineBlock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;

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
 * TimelineBlock#CHAIN_KEYS} newest blocks (a prefix of that chain), so finding a block is point
 * reads, never a map iterator (a RocksDB seek costs tens of point reads, and the heap backend would
 * have to sort the whole map). {@link TimelineBlocks} finds, reads and writes the blocks; this
 * class holds the recent entries and begins and finishes each event.
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
    private final TimelineBlocks blocks;
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

    FlinkTimeline(
            ValueState<TimelineBlock> recentState,
            MapState<SequenceKey, TimelineBlock> blockState,
            StateAccessCounter counter,
            StateCodec codec,
            int blockSize) {
        this.recentState = recentState;
        this.blocks = new TimelineBlocks(blockState, counter, codec, blockSize);
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
        blocks.forget();
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
        return blocks.newestFirst(recent());
    }

    @Override
    public Iterator<TimelineEntry> ascendingFrom(byte[] sequence) {
        TimelineBlock r = recent();
        return r == null ? Collections.emptyIterator() : blocks.ascendingFrom(r, sequence);
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
        byte[] key = blocks.keyFor(r, sequence);
        return key == null ? null : blocks.block(key).entryAt(sequence);
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
            byte[] key = blocks.keyFor(r, sequence);
            if (key != null) {
                blocks.change(key, blocks.block(key).with(stamped));
                return;
            }
        }
        recent = r == null ? TimelineBlock.of(codec, stamped) : r.with(stamped);
        recentChanged = true;
        lastHead = recent.newest();
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
            blocks.writeChanged(this::addSplitKeys);
            if (recentChanged) {
                if (recent.size() > blockSize) {
                    // the older entries move into a block; the newest stays, linked to it
                    TimelineBlock older =
                            recent.range(0, recent.size() - 1, recent.older()).withHead(null);
                    byte[] key = older.newest().sequence();
                    // (split, when a smaller block size than the one that wrote them is restored)
                    recent = recent.newestLinkedTo(blocks.write(key, older));
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

    /** Every block of the key, newest first, by key (reads the whole key). */
    private List<Map.Entry<byte[], TimelineBlock>> chain() {
        TimelineBlock r = recent();
        return blocks.chain(r == null ? null : r.older());
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
        blocks.forget(); // the blocks below are written here, not through the current event's cache
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
            blocks.remove(chain.get(i).getKey());
        }
        if (cut == -1) {
            // the floor is at or before the head: never empty
            recent = r.from(floor).withOlder(null);
            counter.valueWrites++;
            recentState.update(recent);
            return;
        }
        TimelineBlock kept = chain.get(cut).getValue().from(floor);
        int survivors; // blocks left, newest first
        if (kept != null) {
            blocks.putAsIs(chain.get(cut).getKey(), kept.withOlder(null));
            survivors = cut + 1;
        } else {
            blocks.remove(chain.get(cut).getKey());
            survivors = cut;
            if (cut > 0) {
                Map.Entry<byte[], TimelineBlock> newer = chain.get(cut - 1);
                blocks.putAsIs(newer.getKey(), newer.getValue().withOlder(null));
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
        return !recentRead
                || recent == null
                || blocks.startsWith(recent.older(), recent.chainKeys());
    }

    /** Forgets the key's whole history. */
    void clear() {
        recentState.clear();
        blocks.clear();
        recent = null;
        lastHead = null;
    }
}
