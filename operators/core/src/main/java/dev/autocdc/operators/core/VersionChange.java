package dev.autocdc.operators.core;

/**
 * A change to one SCD2 row, identified by its start: inserted (before null), updated (both; the end
 * or the row changed), or deleted (after null).
 */
public final class VersionChange {
    private final Version before;
    private final Version after;

    public VersionChange(Version before, Version after) {
        this.before = before;
        this.after = after;
    }

    public Version before() {
        return before;
    }

    public Version after() {
        return after;
    }

    /** The start both sides share. */
    public byte[] start() {
        return before != null ? before.start() : after.start();
    }

    /** As a change of target rows. */
    public TargetChange toTargetChange(SequenceCodec codec) {
        if (before == null) {
            return TargetChange.insert(after.toTargetRow(codec));
        }
        if (after == null) {
            return TargetChange.delete(before.toTargetRow(codec));
        }
        return TargetChange.update(before.toTargetRow(codec), after.toTargetRow(codec));
    }
}
