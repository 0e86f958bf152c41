package dev.autocdc.operators.core;

/**
 * What the bitemporal fast path needs of a key, kept apart from its events: the greatest business and
 * system sequences seen, the current belief's state at the greatest business sequence (null = absent),
 * and, when that state is present, the open version's start and the system time it is believed from;
 * with a history retention, the floors below which history left state.
 */
public final class BitemporalHead {
    private final byte[] latestSequence;
    private final byte[] latestSystemSequence;
    private final Object[] state;
    private final byte[] openStart;
    private final byte[] openSystemStart;
    private final byte[] floorSequence;
    private final byte[] floorSystemSequence;

    public BitemporalHead(byte[] latestSequence, byte[] latestSystemSequence, Object[] state, byte[] openStart,
                          byte[] openSystemStart) {
        this(latestSequence, latestSystemSequence, state, openStart, openSystemStart, null, null);
    }

    public BitemporalHead(byte[] latestSequence, byte[] latestSystemSequence, Object[] state, byte[] openStart,
                          byte[] openSystemStart, byte[] floorSequence, byte[] floorSystemSequence) {
        this.latestSequence = latestSequence;
        this.latestSystemSequence = latestSystemSequence;
        this.state = state;
        this.openStart = openStart;
        this.openSystemStart = openSystemStart;
        this.floorSequence = floorSequence;
        this.floorSystemSequence = floorSystemSequence;
    }

    /** The same head with the history retention's floors (see {@link BitemporalSnapshot}). */
    public BitemporalHead withFloors(byte[] sequence, byte[] systemSequence) {
        return new BitemporalHead(latestSequence, latestSystemSequence, state, openStart, openSystemStart, sequence,
                systemSequence);
    }

    /** With a history retention: events must be after this business sequence; null when nothing was dropped. */
    public byte[] floorSequence() {
        return floorSequence;
    }

    /** With a history retention: events must be after this system sequence; null when nothing was dropped. */
    public byte[] floorSystemSequence() {
        return floorSystemSequence;
    }

    /** Whether the event would change history the retention dropped (SPEC §7). */
    public boolean isBeforeRetainedHistory(ChangeEvent event) {
        return floorSequence != null && (SequenceCodec.compare(event.sequence(), floorSequence) <= 0
                || SequenceCodec.compare(event.systemSequence(), floorSystemSequence) <= 0);
    }

    public byte[] latestSequence() {
        return latestSequence;
    }

    public byte[] latestSystemSequence() {
        return latestSystemSequence;
    }

    public Object[] state() {
        return state;
    }

    public byte[] openStart() {
        return openStart;
    }

    public byte[] openSystemStart() {
        return openSystemStart;
    }
}
