package dev.autocdc.operators.core;

/**
 * What the bitemporal fast path needs of a key, kept apart from its events: the greatest business and
 * system sequences seen, the current belief's state at the greatest business sequence (null = absent),
 * and, when that state is present, the open version's start and the system time it is believed from.
 */
public final class BitemporalHead {
    private final byte[] latestSequence;
    private final byte[] latestSystemSequence;
    private final Object[] state;
    private final byte[] openStart;
    private final byte[] openSystemStart;

    public BitemporalHead(byte[] latestSequence, byte[] latestSystemSequence, Object[] state, byte[] openStart,
                          byte[] openSystemStart) {
        this.latestSequence = latestSequence;
        this.latestSystemSequence = latestSystemSequence;
        this.state = state;
        this.openStart = openStart;
        this.openSystemStart = openSystemStart;
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
