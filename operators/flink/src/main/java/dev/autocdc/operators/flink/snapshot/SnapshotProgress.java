package dev.autocdc.operators.flink.snapshot;

import dev.autocdc.operators.core.BitemporalSnapshotKey;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.state.StateDescriptors;
import dev.autocdc.operators.flink.state.StateNames;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarBinaryType;

/**
 * One key's progress through the snapshots of a flow from snapshots, and its layout in the keyed
 * state {@value StateNames#SNAPSHOT_APPLIED}, a row of:
 *
 * <ol>
 *   <li>{@code snapshot} BYTES: the last snapshot the key applied (its {@code SnapshotId});
 *   <li>{@code present} BOOLEAN: whether the key is present at the newest version;
 *   <li>{@code presence}, {@code held}, {@code deleted}, each ARRAY of BYTES: bitemporal only (else
 *       null), the key's {@link BitemporalSnapshotKey}: its presence change points (versions), the
 *       ids of the snapshots where its rows were held, the versions whose newest event written is a
 *       delete;
 *   <li>the key's columns, as the flow's input types them (to write its deletes).
 * </ol>
 */
final class SnapshotProgress {

    private static final int SNAPSHOT = 0;
    private static final int PRESENT = 1;
    private static final int PRESENCE = 2;
    private static final int HELD = 3;
    private static final int DELETED = 4;
    private static final int KEY = 5;

    byte[] cursor;
    private boolean present;

    /** Bitemporal flows' key state; null for SCD. */
    final BitemporalSnapshotKey bitemporal;

    final Object[] key;

    private SnapshotProgress(
            byte[] cursor, boolean present, BitemporalSnapshotKey bitemporal, Object[] key) {
        this.cursor = cursor;
        this.present = present;
        this.bitemporal = bitemporal;
        this.key = key;
    }

    /** A key that has applied no snapshot yet. */
    static SnapshotProgress initial(boolean bitemporal, Object[] key) {
        return new SnapshotProgress(
                null, false, bitemporal ? BitemporalSnapshotKey.initial() : null, key);
    }

    /** The state of a key's progress, one {@link #rowType} row. */
    static ValueStateDescriptor<RowData> descriptor(EngineSpec spec) {
        return StateDescriptors.snapshotApplied(rowType(spec));
    }

    static RowType rowType(EngineSpec spec) {
        List<LogicalType> types = new ArrayList<>();
        List<String> names = new ArrayList<>();
        types.add(new VarBinaryType(VarBinaryType.MAX_LENGTH));
        names.add("snapshot");
        types.add(new BooleanType());
        names.add("present");
        for (String list : List.of("presence", "held", "deleted")) {
            types.add(new ArrayType(new VarBinaryType(VarBinaryType.MAX_LENGTH)));
            names.add(list);
        }
        for (int k : spec.flow().keyIndexes()) {
            int f = spec.baseFields()[k];
            types.add(spec.inputType().getTypeAt(f));
            names.add(spec.inputType().getFieldNames().get(f));
        }
        return RowType.of(types.toArray(new LogicalType[0]), names.toArray(new String[0]));
    }

    /** The progress a state row holds. */
    static SnapshotProgress read(RowData row, EngineSpec spec) {
        int[] keys = spec.flow().keyIndexes();
        Object[] key = new Object[keys.length];
        for (int i = 0; i < key.length; i++) {
            LogicalType type = spec.inputType().getTypeAt(spec.baseFields()[keys[i]]);
            key[i] = RowData.createFieldGetter(type, KEY + i).getFieldOrNull(row);
        }
        BitemporalSnapshotKey bitemporal =
                row.isNullAt(PRESENCE)
                        ? null
                        : BitemporalSnapshotKey.of(
                                list(row.getArray(PRESENCE)),
                                list(row.getArray(HELD)),
                                list(row.getArray(DELETED)));
        return new SnapshotProgress(
                row.getBinary(SNAPSHOT), row.getBoolean(PRESENT), bitemporal, key);
    }

    /** Whether the key is present at the newest version. */
    boolean present() {
        return bitemporal != null ? bitemporal.presentAtEnd() : present;
    }

    /** SCD: the key after a snapshot that deleted it, or upserted it. */
    void present(boolean present) {
        this.present = present;
    }

    RowData toRow() {
        GenericRowData row = new GenericRowData(KEY + key.length);
        row.setField(SNAPSHOT, cursor);
        row.setField(PRESENT, present());
        if (bitemporal != null) {
            row.setField(PRESENCE, array(bitemporal.presencePoints()));
            row.setField(HELD, array(bitemporal.heldIds()));
            row.setField(DELETED, array(bitemporal.deletedVersions()));
        }
        for (int i = 0; i < key.length; i++) {
            row.setField(KEY + i, key[i]);
        }
        return row;
    }

    private static List<byte[]> list(ArrayData array) {
        List<byte[]> list = new ArrayList<>(array.size());
        for (int i = 0; i < array.size(); i++) {
            list.add(array.getBinary(i));
        }
        return list;
    }

    private static GenericArrayData array(List<byte[]> list) {
        return new GenericArrayData(list.toArray(new byte[0][]));
    }
}
