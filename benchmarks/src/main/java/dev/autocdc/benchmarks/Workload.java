package dev.autocdc.benchmarks;

import java.io.Serializable;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;

/**
 * The generated workloads of the benchmark (issue 4), as a pure function of the event index, so
 * every variant sees exactly the same events and the source costs almost nothing.
 *
 * <ul>
 *   <li>W1: {@code keys} keys (100k), in order per key, 2% deletes, payload INT, 16-char STRING,
 *       BIGINT;
 *   <li>W2: like W1 with 1k keys, so each key gets {@code events / keys} versions;
 *   <li>W3: W1 where 10% of events land 1-10 versions behind their key's latest sequence;
 *   <li>W4: bitemporal: system time increases with arrival, 5% corrections (an earlier business
 *       time of the key, a later system time), 1% out of order in system time (up to 100 events
 *       behind);
 *   <li>W5: like W1 with 1M keys.
 *   <li>W7: hot keys: like W1, but every other event goes to the first 1% of the keys (1k), in
 *       turn, and the rest to the other 99% in turn: a hot key comes back every 2k events, a cold
 *       one every 198k. At least 200 keys (a scale of at most 500).
 *   <li>W6: {@value #SNAPSHOTS} whole snapshots of {@code keys} rows (1M), each followed by an end
 *       row; between snapshots 1% of the rows change, 0.5% of the keys vanish and 0.5% are new (the
 *       key range slides by 0.5%). The sequence is the snapshot's index times {@link #DAY_MS}.
 * </ul>
 *
 * Business sequences step by 16 per version so a late event can land between two versions.
 */
public final class Workload implements Serializable {
    private static final long serialVersionUID = 1L;

    /** W6: the number of snapshots. */
    static final int SNAPSHOTS = 10;

    /**
     * W6: the step between two snapshots' versions: a day in milliseconds, as a daily snapshot
     * versioned by a DATE is timed (its midnight in epoch milliseconds).
     */
    static final long DAY_MS = 86_400_000L;

    final String name;
    final long keys;
    final long events;

    public Workload(String name, long keys, long events) {
        this.name = name;
        this.keys = keys;
        this.events = events;
    }

    /** A 64-bit mix of the index (splitmix64), for the pseudo-random choices. */
    static long mix(long i) {
        long z = i + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    long key(long i) {
        if (name.equals("W7")) {
            long hot = hotKeys();
            return i % 2 == 0 ? (i / 2) % hot : hot + (i / 2) % Math.max(1, keys - hot);
        }
        return i % keys;
    }

    long version(long i) {
        if (name.equals("W7")) {
            long hot = hotKeys();
            return i % 2 == 0 ? (i / 2) / hot : (i / 2) / Math.max(1, keys - hot);
        }
        return i / keys;
    }

    /** W7: the hot keys, the first 1% (each of the others gets every other event in turn). */
    private long hotKeys() {
        return Math.max(1, keys / 100);
    }

    boolean isDelete(long i) {
        return Math.floorMod(mix(i), 50) == 0;
    }

    /** The business sequence. */
    long sequence(long i) {
        long v = version(i);
        long r = Math.floorMod(mix(i ^ 0x5bd1e995L), 100);
        if (name.equals("W3") && r < 10 && v > 0) {
            long back = 1 + Math.floorMod(mix(i + 7), 10);
            return Math.max(0, v - back) * 16 + 8; // between two of the key's versions
        }
        if (name.equals("W4") && r < 5 && v > 0) {
            long back = 1 + Math.floorMod(mix(i + 11), Math.min(v, 10));
            return (v - back) * 16; // a correction at an earlier business time of the key
        }
        return v * 16;
    }

    /** The system sequence (W4): arrival order, 1% up to 100 events behind. */
    long systemSequence(long i) {
        long r = Math.floorMod(mix(i ^ 0x1b873593L), 100);
        if (r == 0 && i > 100) {
            return i - 1 - Math.floorMod(mix(i + 13), 100);
        }
        return i;
    }

    int intPayload(long i) {
        return (int) (mix(i + 3) & 0xFFFF);
    }

    String stringPayload(long i) {
        String s = Long.toHexString(mix(i + 5) & 0xFFFF_FFFF_FFFFL);
        return "0000000000000000".substring(s.length()) + s; // 16 characters
    }

    long longPayload(long i) {
        return mix(i + 9);
    }

    /** The event of an index as the engine's input row: k, a, b, c, __seq, [__sys,] __delete. */
    RowData row(long i, boolean bitemporal) {
        GenericRowData row = new GenericRowData(bitemporal ? 7 : 6);
        row.setField(0, key(i));
        row.setField(1, intPayload(i));
        row.setField(2, StringData.fromString(stringPayload(i)));
        row.setField(3, longPayload(i));
        row.setField(4, sequence(i));
        if (bitemporal) {
            row.setField(5, systemSequence(i));
        }
        row.setField(bitemporal ? 6 : 5, isDelete(i));
        return row;
    }

    /** The event of an index as a JSON change record (the Kafka benchmark's topic). */
    String json(long i) {
        return "{\"k\":"
                + key(i)
                + ",\"a\":"
                + intPayload(i)
                + ",\"b\":\""
                + stringPayload(i)
                + "\",\"c\":"
                + longPayload(i)
                + ",\"seq\":"
                + sequence(i)
                + ",\"op\":\""
                + (isDelete(i) ? "D" : "U")
                + "\"}";
    }

    /** W6: the index's snapshot. */
    long snapshot(long i) {
        return i / (keys + 1);
    }

    /** W6: whether the index is the end row of its snapshot (the last of each). */
    boolean isSnapshotEnd(long i) {
        return i % (keys + 1) == keys;
    }

    /** W6: the key of a row; the range slides by 0.5% of the keys per snapshot. */
    long snapshotKey(long i) {
        return snapshot(i) * Math.max(1, keys / 200) + i % (keys + 1);
    }

    /** W6: the last snapshot, up to the index's, at which the key's row changed (1% each). */
    long valueEpoch(long key, long snapshot) {
        for (long s = snapshot; s > 0; s--) {
            if (Math.floorMod(mix(key * 1_000_003L + s), 100) == 0) {
                return s;
            }
        }
        return 0;
    }

    /**
     * W6: the row of an index: k, a, b, c, __seq, then {@code __snapshot_end} (the snapshot flow)
     * or {@code __delete} (false, Flink SQL deduplication); null for an end row without that
     * column.
     */
    RowData snapshotRow(long i, boolean endColumn) {
        boolean end = isSnapshotEnd(i);
        if (end && !endColumn) {
            return null;
        }
        long key = snapshotKey(i);
        long value = key * 31 + valueEpoch(key, snapshot(i));
        GenericRowData row = new GenericRowData(6);
        row.setField(0, key);
        row.setField(1, intPayload(value));
        row.setField(2, StringData.fromString(stringPayload(value)));
        row.setField(3, longPayload(value));
        row.setField(4, snapshot(i) * DAY_MS);
        row.setField(5, end);
        return row;
    }

    static Workload named(String name, long scale) {
        switch (name) {
            case "W6":
                {
                    long keys = Math.max(1, 1_000_000 / scale);
                    return new Workload(name, keys, SNAPSHOTS * (keys + 1));
                }
            case "W1":
            case "W3":
            case "W4":
            case "W7":
                if (name.equals("W7") && 100_000 / scale < 200) {
                    throw new IllegalArgumentException(
                            "W7 needs at least 200 keys, so that its 1% of hot keys is 2 or more"
                                    + " and leaves cold keys: use a --scale of at most 500");
                }
                return new Workload(name, Math.max(1, 100_000 / scale), 5_000_000 / scale);
            case "W2":
                return new Workload(name, Math.max(1, 1_000 / scale), 5_000_000 / scale);
            case "W5":
                return new Workload(name, Math.max(1, 1_000_000 / scale), 10_000_000 / scale);
            default:
                throw new IllegalArgumentException("unknown workload " + name);
        }
    }
}
