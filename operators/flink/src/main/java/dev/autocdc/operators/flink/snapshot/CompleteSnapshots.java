package dev.autocdc.operators.flink.snapshot;

import dev.autocdc.operators.core.SnapshotId;
import dev.autocdc.operators.core.SnapshotIndex;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.flink.table.data.RowData;

/**
 * The complete snapshots one instance of {@link AutoCdcSnapshotFunction} knows (a copy of its
 * broadcast state): their marks ({@link SnapshotMarks}) in the order they apply, and their {@link
 * SnapshotIndex}; and the snapshots the safety valve holds (marks with their held flag), until a
 * complete mark of the same snapshot replaces them. In memory only: rebuilt from the broadcast
 * state after a restore.
 *
 * <p>Flink's map states key snapshots by {@link #key}: the id's bytes as ISO-8859-1 characters, one
 * per byte (a heap map compares byte arrays by identity).
 */
final class CompleteSnapshots {
    private final TreeMap<byte[], RowData> marks = new TreeMap<>(SnapshotId::compare);
    private final TreeMap<byte[], RowData> held = new TreeMap<>(SnapshotId::compare);
    private final SnapshotIndex index;
    private final Function<RowData, byte[]> versionOf;

    /**
     * @param versionOf the encoded version of a mark; null when no index is needed (SCD flows)
     */
    CompleteSnapshots(Function<RowData, byte[]> versionOf) {
        this.versionOf = versionOf;
        this.index = versionOf == null ? null : new SnapshotIndex();
    }

    static String key(byte[] id) {
        return new String(id, StandardCharsets.ISO_8859_1);
    }

    static byte[] id(String key) {
        return key.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** Adds a complete mark, or a held one (its held flag set). */
    void add(RowData mark) {
        byte[] id = mark.getBinary(SnapshotMarks.ID);
        if (mark.getBoolean(SnapshotMarks.HELD)) {
            held.put(id, mark);
            return;
        }
        held.remove(id);
        marks.put(id, mark);
        if (index != null) {
            index.add(id, versionOf.apply(mark));
        }
    }

    /** The index by version; null for SCD flows. */
    SnapshotIndex index() {
        return index;
    }

    RowData mark(byte[] id) {
        return marks.get(id);
    }

    /** The mark of a snapshot the safety valve holds, or null. */
    RowData held(byte[] id) {
        return held.get(id);
    }

    boolean contains(byte[] id) {
        return marks.containsKey(id);
    }

    /** The first snapshot after {@code id} (after none: the first), or null. */
    byte[] after(byte[] id) {
        if (marks.isEmpty()) {
            return null;
        }
        return id == null ? marks.firstKey() : marks.higherKey(id);
    }

    /** The snapshot if the watermark has passed it; else null. */
    byte[] passed(byte[] id, long watermark) {
        return id != null && time(id) <= watermark ? id : null;
    }

    /**
     * The time of the newest snapshot the watermark has passed, or {@code Long.MIN_VALUE}: none
     * (times grow with the apply order, so the newest passed is the last one at or below it).
     */
    long newestPassed(long watermark) {
        for (byte[] id : marks.descendingKeySet()) {
            long time = time(id);
            if (time <= watermark) {
                return time;
            }
        }
        return Long.MIN_VALUE;
    }

    private long time(byte[] id) {
        return marks.get(id).getLong(SnapshotMarks.TIME);
    }

    /**
     * Forgets the snapshots the watermark has passed, first to last, telling each to {@code
     * removed} (SCD flows, which have no index: no key needs them once every key with work at them
     * has run).
     */
    void forgetPassed(long watermark, Consumer<byte[]> removed) {
        while (!marks.isEmpty() && time(marks.firstKey()) <= watermark) {
            removed.accept(marks.pollFirstEntry().getKey());
        }
    }

    /**
     * The snapshots that restate an older version ({@link SnapshotIndex#restatesOlder}) with a time
     * in {@code (after, upTo]}, in order: those the watermark passes when it moves from {@code
     * after} to {@code upTo}.
     */
    List<byte[]> restatingBetween(long after, long upTo) {
        List<byte[]> restating = new ArrayList<>();
        for (byte[] id : marks.descendingKeySet()) {
            long time = time(id);
            if (time <= after) {
                break;
            }
            if (time <= upTo && index.restatesOlder(id)) {
                restating.add(0, id);
            }
        }
        return restating;
    }
}
