package dev.autocdc.operators.flink.snapshot;

import dev.autocdc.operators.core.SnapshotId;
import dev.autocdc.operators.flink.state.StateNames;
import dev.autocdc.operators.flink.state.WideningRowSerializer;
import dev.autocdc.operators.flink.state.WriteBackCache;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.table.data.RowData;

/**
 * The keyed map {@value StateNames#SNAPSHOT_PENDING} (snapshot id as {@link CompleteSnapshots#key}
 * to the key's rows in it) seen as one value per key, {@link WaitingRows}, so that a write-back
 * cache can keep a key's waiting rows as it keeps its other state. The layout in keyed state does
 * not change.
 *
 * <ul>
 *   <li>{@link #value()} reads every entry of the current key (rows restored from a narrower input
 *       widened); a key without any has no rows, and is never null.
 *   <li>{@link #update} removes the entries of snapshots gone since the value's lineage was last
 *       read or written, and puts those whose rows changed since (a new list).
 * </ul>
 */
final class WaitingRowsState implements ValueState<WaitingRows> {
    /** The serialized bytes a value without rows counts as. */
    static final int EMPTY_VALUE_BYTES = 16;

    private final MapState<String, List<RowData>> map;
    private final WideningRowSerializer rows;

    WaitingRowsState(MapState<String, List<RowData>> map, WideningRowSerializer rows) {
        this.map = map;
        this.rows = rows;
    }

    @Override
    public WaitingRows value() throws IOException {
        TreeMap<byte[], List<RowData>> bySnapshot = new TreeMap<>(SnapshotId::compare);
        Map<String, List<RowData>> lists = new HashMap<>();
        try {
            for (Map.Entry<String, List<RowData>> e : map.entries()) {
                List<RowData> rowsOfSnapshot = widened(e.getValue());
                lists.put(e.getKey(), rowsOfSnapshot);
                bySnapshot.put(CompleteSnapshots.id(e.getKey()), rowsOfSnapshot);
            }
        } catch (Exception e) {
            throw new IOException("cannot read a key's waiting snapshot rows", e);
        }
        return new WaitingRows(bySnapshot, new WaitingRows.Stored(Map.copyOf(lists)));
    }

    /**
     * Rows as the flow's input type has them now, in a new unmodifiable list: a restore may hold
     * rows of an input that has since gained columns at its end (null in them); null stays null.
     */
    List<RowData> widened(List<RowData> stored) {
        return stored == null ? null : stored.stream().map(rows::widen).toList();
    }

    @Override
    public void update(WaitingRows value) throws IOException {
        if (value == null) {
            clear();
            return;
        }
        Map<String, List<RowData>> stored = value.stored.lists;
        Map<String, List<RowData>> now = new HashMap<>();
        try {
            for (Map.Entry<byte[], List<RowData>> e : value.all().entrySet()) {
                String key = CompleteSnapshots.key(e.getKey());
                now.put(key, e.getValue());
                if (stored.get(key) != e.getValue()) { // a new list: its rows changed
                    map.put(key, e.getValue());
                }
            }
            for (String gone : stored.keySet()) {
                if (!now.containsKey(gone)) {
                    map.remove(gone);
                }
            }
        } catch (Exception e) {
            throw new IOException("cannot write a key's waiting snapshot rows", e);
        }
        value.stored.lists = Map.copyOf(now);
    }

    /** The current key's rows of snapshot {@code id} (widened), read alone; null: none. */
    List<RowData> rowsOf(byte[] id) throws IOException {
        try {
            return widened(map.get(CompleteSnapshots.key(id)));
        } catch (Exception e) {
            throw new IOException("cannot read a key's waiting snapshot rows", e);
        }
    }

    /** Writes the current key's rows of snapshot {@code id} alone. */
    void put(byte[] id, List<RowData> rowsOfSnapshot) throws IOException {
        try {
            map.put(CompleteSnapshots.key(id), rowsOfSnapshot);
        } catch (Exception e) {
            throw new IOException("cannot write a key's waiting snapshot rows", e);
        }
    }

    @Override
    public void clear() {
        map.clear();
    }

    /**
     * The serialized size of a value (to estimate a cached key's heap), at least {@value
     * #EMPTY_VALUE_BYTES}: a value without rows still holds its map and its bookkeeping.
     */
    WriteBackCache.Sizer<WaitingRows> sizer() {
        DataOutputSerializer out = new DataOutputSerializer(256);
        return value -> {
            out.clear();
            out.write(new byte[EMPTY_VALUE_BYTES]);
            for (Map.Entry<byte[], List<RowData>> e : value.all().entrySet()) {
                out.write(e.getKey());
                for (RowData row : e.getValue()) {
                    rows.serialize(row, out);
                }
            }
            return out.length();
        };
    }
}
