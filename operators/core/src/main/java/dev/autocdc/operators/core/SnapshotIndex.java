package dev.autocdc.operators.core;

import java.util.NavigableSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The complete snapshots of a flow from snapshots (SPEC §10), by id ({@link SnapshotId}) and by
 * version ({@link SequenceCodec} bytes), for the two questions a bitemporal key asks when a
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

    /** Adds a complete snapshot; adding one again changes nothing. */
    public void add(byte[] id, byte[] version) {
        versionById.put(id, version);
        idsByVersion.computeIfAbsent(version, v -> new TreeSet<>(SnapshotId::compare)).add(id);
    }

    /** Forgets a snapshot (SCD flows forget those no key needs). */
    public void remove(byte[] id) {
        byte[] version = versionById.remove(id);
        if (version == null) {
            return;
        }
        TreeSet<byte[]> ids = idsByVersion.get(version);
        ids.remove(id);
        if (ids.isEmpty()) {
            idsByVersion.remove(version);
        }
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
        for (TreeSet<byte[]> ids : idsByVersion.tailMap(versionById.get(id), false).values()) {
            if (SnapshotId.compare(ids.first(), id) < 0) {
                return true;
            }
        }
        return false;
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
