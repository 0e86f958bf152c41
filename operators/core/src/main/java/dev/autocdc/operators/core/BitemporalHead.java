package dev.autocdc.operators.core;

/**
 * What a bitemporal key keeps about system time, apart from its belief ({@link
 * BitemporalStore#belief()}): the greatest system sequence seen, the system time the open version
 * of the current belief is believed from (null when the belief has no open version), and, with a
 * history retention or after a tombstone expired, the floors below which history left state.
 */
public final class BitemporalHead {
    private final byte[] latestSystemSequence;
    private final byte[] openSystemStart;
    private final byte[] floorSequence;
    private final byte[] floorSystemSequence;

    public BitemporalHead(
            byte[] latestSystemSequence,
            byte[] openSystemStart,
            byte[] floorSequence,
            byte[] floorSystemSequence) {
        this.latestSystemSequence = latestSystemSequence;
        this.openSystemStart = openSystemStart;
        this.floorSequence = floorSequence;
        this.floorSystemSequence = floorSystemSequence;
    }

    /** The same head with the history retention's floors (see {@link BitemporalSnapshot}). */
    public BitemporalHead withFloors(byte[] sequence, byte[] systemSequence) {
        return new BitemporalHead(latestSystemSequence, openSystemStart, sequence, systemSequence);
    }

    /**
     * With a history retention: events must be after this business sequence; null when nothing was
     * dropped.
     */
    public byte[] floorSequence() {
        return floorSequence;
    }

    /**
     * With a history retention: events must be after this system sequence; null when nothing was
     * dropped.
     */
    public byte[] floorSystemSequence() {
        return floorSystemSequence;
    }

    /** Whether the event would change history the retention dropped (semantics §7). */
    public boolean isBeforeRetainedHistory(ChangeEvent event) {
        return floorSequence != null
                && (SequenceCodec.compare(event.sequence(), floorSequence) <= 0
                        || SequenceCodec.compare(event.systemSequence(), floorSystemSequence) <= 0);
    }

    public byte[] latestSystemSequence() {
        return latestSystemSequence;
    }

    /**
     * The system start of the believed row of the current belief's open version; null when there is
     * none.
     */
    public byte[] openSystemStart() {
        return openSystemStart;
    }
}
