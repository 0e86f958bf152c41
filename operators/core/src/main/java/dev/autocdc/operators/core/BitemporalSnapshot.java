package dev.autocdc.operators.core;

import java.util.List;

/**
 * What a bitemporal key keeps of the history its retention dropped (semantics §7): the table is
 * frozen below a business floor F and up to a system floor T, and only events after both are
 * accepted.
 *
 * <p>F is a version boundary of the belief at T, and every event before F was recorded at or before
 * T, so no accepted event can change the state at or before F, nor any belief up to T: rows that
 * end at or before F, or stopped being believed by T, never change again (they are in the sink) and
 * leave state with the events before F. To go on computing the rest exactly, the key keeps the
 * state just before F as believed at T (the seed of the business timeline) and the rows believed at
 * T that start at or after F, with their system start.
 */
public final class BitemporalSnapshot {
    private final byte[] floorSequence;
    private final byte[] floorSystemSequence;
    private final Object[] seedState;
    private final List<BitemporalRow> believed;

    public BitemporalSnapshot(
            byte[] floorSequence,
            byte[] floorSystemSequence,
            Object[] seedState,
            List<BitemporalRow> believed) {
        this.floorSequence = floorSequence;
        this.floorSystemSequence = floorSystemSequence;
        this.seedState = seedState;
        this.believed = List.copyOf(believed);
    }

    /** F: the oldest business sequence the key holds; events must be after it. */
    public byte[] floorSequence() {
        return floorSequence;
    }

    /** T: the system sequence up to which the table is frozen; events must be after it. */
    public byte[] floorSystemSequence() {
        return floorSystemSequence;
    }

    /** The key's state just before F, as believed at T (null: absent). */
    public Object[] seedState() {
        return seedState;
    }

    /** The rows believed at T whose business interval starts at or after F. */
    public List<BitemporalRow> believed() {
        return believed;
    }
}
