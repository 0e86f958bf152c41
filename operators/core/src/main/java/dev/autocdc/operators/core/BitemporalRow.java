package dev.autocdc.operators.core;

import java.util.Arrays;
import java.util.List;

/**
 * One bitemporal row (semantics §5): a version of some belief, with the maximal system interval
 * [systemStart, systemEnd) over which it is believed ({@code systemEnd} null while believed). Its
 * changelog primary key is (keys, start, systemStart).
 */
public final class BitemporalRow {
    private final Version version;
    private final byte[] systemStart;
    private final byte[] systemEnd;

    public BitemporalRow(Version version, byte[] systemStart, byte[] systemEnd) {
        this.version = version;
        this.systemStart = systemStart;
        this.systemEnd = systemEnd;
    }

    public Version version() {
        return version;
    }

    public byte[] systemStart() {
        return systemStart;
    }

    public byte[] systemEnd() {
        return systemEnd;
    }

    public BitemporalRow closedAt(byte[] end) {
        return new BitemporalRow(version, systemStart, end);
    }

    public BitemporalRow withVersion(Version v) {
        return new BitemporalRow(v, systemStart, systemEnd);
    }

    /**
     * The primary key within the entity: start and system start, concatenated (both are
     * prefix-free).
     */
    public PrimaryKey primaryKey() {
        return new PrimaryKey(version.start(), systemStart);
    }

    public boolean sameAs(BitemporalRow other) {
        return version.sameAs(other.version)
                && Arrays.equals(systemStart, other.systemStart)
                && Arrays.equals(systemEnd, other.systemEnd);
    }

    /** Base columns, __START_AT, __END_AT, __SYSTEM_START_AT, __SYSTEM_END_AT. */
    public Object[] toTargetRow(SequenceCodec business, SequenceCodec system) {
        return targetRow(
                version.row(),
                business.decode(version.start()),
                version.end() == null ? null : business.decode(version.end()),
                system.decode(systemStart),
                systemEnd == null ? null : system.decode(systemEnd));
    }

    /**
     * The changes one changed version makes at system time t (semantics §5), as target rows: the
     * row believed before ({@code believed}; null: none) closes at t ({@code closed}, that row
     * closed at t), or, when it was believed from t itself, never was and is replaced; the new
     * version's row ({@code now}; null: none) is believed from t. Both bitemporal paths emit
     * through this, so the rule is written once.
     */
    static void transition(
            List<TargetChange> out,
            Object[] believed,
            boolean believedFromT,
            Object[] closed,
            Object[] now) {
        if (believed != null && believedFromT) {
            out.add(
                    now == null
                            ? TargetChange.delete(believed)
                            : TargetChange.update(believed, now));
            return;
        }
        if (believed != null) {
            out.add(TargetChange.update(believed, closed));
        }
        if (now != null) {
            out.add(TargetChange.insert(now));
        }
    }

    /** The target row of a version's row and its decoded sequences (null: open). */
    static Object[] targetRow(
            Object[] row, Object start, Object end, Object systemStart, Object systemEnd) {
        Object[] out = Arrays.copyOf(row, row.length + 4);
        out[row.length] = start;
        out[row.length + 1] = end;
        out[row.length + 2] = systemStart;
        out[row.length + 3] = systemEnd;
        return out;
    }

    @Override
    public String toString() {
        return version
                + " sys["
                + Arrays.toString(systemStart)
                + ","
                + (systemEnd == null ? "-" : Arrays.toString(systemEnd))
                + ")";
    }

    /** (start, system start) of a bitemporal row, ordered by start then system start. */
    public static final class PrimaryKey implements Comparable<PrimaryKey> {
        private final byte[] start;
        private final byte[] systemStart;

        public PrimaryKey(byte[] start, byte[] systemStart) {
            this.start = start;
            this.systemStart = systemStart;
        }

        @Override
        public int compareTo(PrimaryKey o) {
            int c = SequenceCodec.compare(start, o.start);
            return c != 0 ? c : SequenceCodec.compare(systemStart, o.systemStart);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof PrimaryKey && compareTo((PrimaryKey) o) == 0;
        }

        @Override
        public int hashCode() {
            return 31 * Arrays.hashCode(start) + Arrays.hashCode(systemStart);
        }
    }
}
