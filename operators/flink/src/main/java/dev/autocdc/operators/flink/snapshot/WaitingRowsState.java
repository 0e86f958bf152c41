package dev.autocdc.operators.flink.snapshot;

import dev.autocdc.operators.core.SnapshotId;
import dev.autocdc.operators.flink.state.StateNames;
import dev.autocdc.operators.flink.state.WideningRowSerializer;
import dev.autocdc.operators.flink.state.WriteBackCache;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 *       read or written, and puts every entry it has.
 * </ul>
 */
final class WaitingRowsState implements ValueState<WaitingRows> {
    private final MapState<String, List<RowData>> map;
    private final WideningRowSerializer rows;

    WaitingRowsState(MapState<String, List<RowData>> map, WideningRowSerializer rows) {
        this.map = map;
        this.rows = rows;
    }

    @Override
    public WaitingRows value() throws IOException {
        TreeMap<byte[], List<RowData>> bySnapshot = new TreeMap<>(SnapshotId::compare);
        Set<String> ids = new HashSet<>();
        try {
            for (Map.Entry<String, List<RowData>> e : map.entries()) {
                ids.add(e.getKey());
                bySnapshot.put(CompleteSnapshots.id(e.getKey()), widened(e.getValue()));
            }
        } catch (Exception e) {
            throw new IOException("cannot read a key's waiting snapshot rows", e);
        }
        return new WaitingRows(bySnapshot, new WaitingRows.Stored(Set.copyOf(ids)));
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
        Set<String> now = new HashSet<>();
        try {
            for (Map.Entry<byte[], List<RowData>> e : value.all().entrySet()) {
                String key = CompleteSnapshots.key(e.getKey());
                now.add(key);
                map.put(key, e.getValue());
            }
            for (String gone : value.stored.ids) {
                if (!now.contains(gone)) {
                    map.remove(gone);
                }
            }
        } catch (Exception e) {
            throw new IOException("cannot write a key's waiting snapshot rows", e);
        }
        value.stored.ids = Set.copyOf(now);
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

    /** The serialized size of a value (to estimate a cached key's heap). */
    WriteBackCache.Sizer<WaitingRows> sizer() {
        DataOutputSerializer out = new DataOutputSerializer(256);
        return value -> {
            out.clear();
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
