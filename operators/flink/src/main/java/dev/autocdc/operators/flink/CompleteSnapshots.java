package dev.autocdc.operators.flink;

import dev.autocdc.operators.core.SequenceCodec;
import dev.autocdc.operators.core.SnapshotId;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.flink.table.data.RowData;

/**
 * The complete snapshots one instance of {@link AutoCdcSnapshotFunction} knows (a copy of its
 * broadcast state), in the order they apply, with the index by version that bitemporal flows need
 * to tell a restated version from a newer one. In memory only: rebuilt from the broadcast state
 * after a restore.
 */
final class CompleteSnapshots {

    /** One complete snapshot: its id, its mark ({@link SnapshotMarks}), its encoded version. */
    record Snapshot(byte[] id, RowData mark, byte[] version) {
        long time() {
            return mark.getLong(SnapshotMarks.TIME);
        }
    }

    private final TreeMap<byte[], Snapshot> byId = new TreeMap<>(SnapshotId::compare);
    private final TreeMap<byte[], TreeSet<byte[]>> idsByVersion =
            new TreeMap<>(SequenceCodec::compare);
    private final Function<RowData, byte[]> versionOf;

    /**
     * @param versionOf the encoded version of a mark
     */
    CompleteSnapshots(Function<RowData, byte[]> versionOf) {
        this.versionOf = versionOf;
    }

    void add(RowData mark) {
        byte[] id = mark.getBinary(SnapshotMarks.ID);
        byte[] version = versionOf.apply(mark);
        byId.put(id, new Snapshot(id, mark, version));
        idsByVersion.computeIfAbsent(version, v -> new TreeSet<>(SnapshotId::compare)).add(id);
    }

    boolean isEmpty() {
        return byId.isEmpty();
    }

    Snapshot get(byte[] id) {
        return byId.get(id);
    }

    boolean contains(byte[] id) {
        return byId.containsKey(id);
    }

    /** The first snapshot after {@code id} (after none: the first), or null. */
    byte[] after(byte[] id) {
        if (byId.isEmpty()) {
            return null;
        }
        return id == null ? byId.firstKey() : byId.higherKey(id);
    }

    /** The snapshot if the watermark has passed it; else null. */
    byte[] passed(byte[] id, long watermark) {
        return id != null && byId.get(id).time() <= watermark ? id : null;
    }

    /**
     * Forgets the snapshots the watermark has passed, first to last, telling each to {@code
     * removed} (SCD flows: no key needs them once every key with work at them has run).
     */
    void forgetPassed(long watermark, Consumer<byte[]> removed) {
        while (!byId.isEmpty() && byId.firstEntry().getValue().time() <= watermark) {
            Snapshot s = byId.pollFirstEntry().getValue();
            TreeSet<byte[]> ids = idsByVersion.get(s.version());
            ids.remove(s.id());
            if (ids.isEmpty()) {
                idsByVersion.remove(s.version());
            }
            removed.accept(s.id());
        }
    }

    /**
     * Whether the snapshot restates an older version: a snapshot applied before it has a greater
     * version (bitemporal only). Such a snapshot may delete keys that are absent at the newest
     * version and so have no timer: the keys must be scanned.
     */
    boolean restatesOlder(byte[] id) {
        byte[] version = byId.get(id).version();
        for (TreeSet<byte[]> ids : idsByVersion.tailMap(version, false).values()) {
            if (SnapshotId.compare(ids.first(), id) < 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a snapshot that restates an older version has a time in {@code (after, upTo]}: the
     * watermark moving from {@code after} to {@code upTo} passes it.
     */
    boolean restatingBetween(long after, long upTo) {
        for (Snapshot s : byId.descendingMap().values()) {
            if (s.time() <= after) {
                return false;
            }
            if (s.time() <= upTo && restatesOlder(s.id())) {
                return true;
            }
        }
        return false;
    }

    /**
     * The next version after {@code version} at which a key has an event before snapshot {@code
     * before}: the first greater version of a snapshot applied before {@code before} whose id is
     * not in {@code held} (the snapshots where the key's rows were held, which give it no event).
     * Returns the last such snapshot of that version, whose rows (or lack of them) decide the key's
     * event there; null when there is none.
     */
    Snapshot successor(byte[] version, byte[] before, Set<String> held) {
        for (TreeSet<byte[]> ids : idsByVersion.tailMap(version, false).values()) {
            byte[] last = null;
            for (byte[] id : ids.headSet(before, false)) {
                if (!held.contains(AutoCdcSnapshotFunction.text(id))) {
                    last = id;
                }
            }
            if (last != null) {
                return byId.get(last);
            }
        }
        return null;
    }
}
