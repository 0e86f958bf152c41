package dev.autocdc.operators.core;

import java.util.NavigableSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The complete snapshots of a flow from snapshots (semantics §10), by id ({@link SnapshotId}) and
 * by version ({@link SequenceCodec} bytes), for the two questions a bitemporal key asks when a
 * snapshot applies: does the snapshot restate an older version, and which snapshot decides the
 * key's event at the next version. Snapshots apply in id order, so "applied before a snapshot"
 * means "a smaller id": the later members of a group sharing a system sequence are not applied
 * before it.
 *
 * <p>Not thread-safe. Byte arrays are compared by content, never modified, and not copied.
 */
public final class SnapshotIndex {
    private final TreeMap<byte[], byte[]> versionById = new TreeMap<>(SnapshotId::compare);
    private final TreeMap<byte[], TreeSet<byte[]>> idsByVersion =
            new TreeMap<>(SequenceCodec::compare);

    /** Per id, the greatest version of the snapshots up to it: O(log n) answers for the newest. */
    private final TreeMap<byte[], byte[]> greatestUpTo = new TreeMap<>(SnapshotId::compare);

    /**
     * Adds a complete snapshot; adding one again changes nothing. Snapshots complete in order, so
     * this is O(log n); one added before others (a restore reads them in any order) costs O(n).
     */
    public void add(byte[] id, byte[] version) {
        if (versionById.put(id, version) != null) {
            return;
        }
        idsByVersion.computeIfAbsent(version, v -> new TreeSet<>(SnapshotId::compare)).add(id);
        if (greatestUpTo.isEmpty() || SnapshotId.compare(greatestUpTo.lastKey(), id) < 0) {
            byte[] before = greatestUpTo.isEmpty() ? null : greatestUpTo.lastEntry().getValue();
            greatestUpTo.put(id, max(before, version));
            return;
        }
        greatestUpTo.clear();
        byte[] greatest = null;
        for (var e : versionById.entrySet()) {
            greatest = max(greatest, e.getValue());
            greatestUpTo.put(e.getKey(), greatest);
        }
    }

    private static byte[] max(byte[] a, byte[] b) {
        return a == null || SequenceCodec.compare(b, a) > 0 ? b : a;
    }

    /** The greatest version of the snapshots applied before {@code id}, or null. */
    private byte[] greatestBefore(byte[] id) {
        var e = greatestUpTo.lowerEntry(id);
        return e == null ? null : e.getValue();
    }

    /** The version of a snapshot in the index. */
    public byte[] version(byte[] id) {
        return versionById.get(id);
    }

    /**
     * Whether the snapshot restates an older version: a snapshot applied before it has a greater
     * version. Such a snapshot can delete a key that is absent at the newest version.
     */
    public boolean restatesOlder(byte[] id) {
        byte[] greatest = greatestBefore(id);
        return greatest != null && SequenceCodec.compare(greatest, versionById.get(id)) > 0;
    }

    /**
     * The snapshot that decides a key's event at the first version after {@code version} where the
     * key has one among the snapshots applied before {@code before}: the last such snapshot of that
     * version that is not in {@code held} (snapshots where the key's rows were held give it no
     * event). Null when there is none.
     *
     * @param held ids, in a set ordered by {@link SnapshotId#compare}
     */
    public byte[] successor(byte[] version, byte[] before, NavigableSet<byte[]> held) {
        byte[] greatest = greatestBefore(before);
        if (greatest == null || SequenceCodec.compare(greatest, version) <= 0) {
            return null; // a version newer than every one applied before: the common case
        }
        for (TreeSet<byte[]> ids : idsByVersion.tailMap(version, false).values()) {
            for (byte[] id : ids.headSet(before, false).descendingSet()) {
                if (!held.contains(id)) {
                    return id;
                }
            }
        }
        return null;
    }
}
