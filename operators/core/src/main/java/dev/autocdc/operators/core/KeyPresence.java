package dev.autocdc.operators.core;

import java.util.ArrayList;
import java.util.List;

/**
 * Whether one key is present at each version of a bitemporal flow from snapshots (semantics §10),
 * in the belief its applied snapshots make: a step function over versions, kept as its change
 * points. Versions are {@link SequenceCodec} encodings and compare with {@link
 * SequenceCodec#compare}.
 *
 * <p>The points ascend strictly and alternate: the key is absent before the first point, present
 * from it, absent from the second, present from the third, and so on. So an empty list is a key
 * never present, and an odd count a key present at every version after the last point. A key that
 * appears once and vanishes once costs two points, whatever the number of snapshots.
 *
 * <p>Not thread-safe; {@link #points()} is the list itself (for serializing, not to modify).
 */
public final class KeyPresence {
    private final List<byte[]> points;

    private KeyPresence(List<byte[]> points) {
        this.points = points;
    }

    /** A key present at no version. */
    public static KeyPresence absent() {
        return new KeyPresence(new ArrayList<>(2));
    }

    /** The presence whose change points these are (ascending, as {@link #points()} gave them). */
    public static KeyPresence of(List<byte[]> points) {
        for (int i = 1; i < points.size(); i++) {
            if (SequenceCodec.compare(points.get(i - 1), points.get(i)) >= 0) {
                throw new IllegalArgumentException("change points must ascend strictly");
            }
        }
        return new KeyPresence(new ArrayList<>(points));
    }

    public List<byte[]> points() {
        return points;
    }

    /** Whether the key is present at the version. */
    public boolean at(byte[] version) {
        return pointsAtOrBefore(version) % 2 == 1;
    }

    /** Whether the key is present at every version after the last change point. */
    public boolean atEnd() {
        return points.size() % 2 == 1;
    }

    /** Whether the key is present at some version. */
    public boolean ever() {
        return !points.isEmpty();
    }

    /**
     * Makes the key present (or absent) at every version from {@code from} (inclusive) until {@code
     * until} (exclusive; null: every later version), and leaves every other version as it was.
     */
    public void set(byte[] from, byte[] until, boolean present) {
        if (until != null && SequenceCodec.compare(from, until) >= 0) {
            throw new IllegalArgumentException("an empty range of versions");
        }
        int first = pointsBefore(from);
        int last = until == null ? points.size() : pointsAtOrBefore(until);
        boolean afterUntil = last % 2 == 1; // the presence at until, kept
        List<byte[]> changed = new ArrayList<>(first + 2);
        if ((first % 2 == 1) != present) {
            changed.add(from);
        }
        if (until != null && afterUntil != present) {
            changed.add(until);
        }
        List<byte[]> range = points.subList(first, last);
        range.clear();
        range.addAll(changed);
    }

    /** The number of points strictly before the version. */
    private int pointsBefore(byte[] version) {
        int low = 0;
        int high = points.size();
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (SequenceCodec.compare(points.get(mid), version) < 0) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return low;
    }

    /** The number of points at or before the version. */
    private int pointsAtOrBefore(byte[] version) {
        int before = pointsBefore(version);
        return before < points.size() && SequenceCodec.compare(points.get(before), version) == 0
                ? before + 1
                : before;
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("KeyPresence[");
        for (int i = 0; i < points.size(); i++) {
            s.append(i % 2 == 0 ? (i == 0 ? "+" : " +") : " -");
            for (byte b : points.get(i)) {
                s.append(String.format("%02x", b));
            }
        }
        return s.append(']').toString();
    }
}
