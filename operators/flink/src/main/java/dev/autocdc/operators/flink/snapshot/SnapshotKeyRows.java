package dev.autocdc.operators.flink.snapshot;

import dev.autocdc.operators.flink.spec.ControlColumn;
import dev.autocdc.operators.flink.spec.EngineSpec;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;

/**
 * The rows of a flow from snapshots seen by key: a row's key columns, and the delete a snapshot
 * stands for where it lacks a key, as a row of the flow's input type (the key, the snapshot's
 * version and system sequence, every other column null).
 */
final class SnapshotKeyRows {
    private final EngineSpec spec;
    private final int[] keyFields;
    private final RowData.FieldGetter[] keyGetters;
    private final RowData.FieldGetter version;
    private final RowData.FieldGetter systemSequence;

    SnapshotKeyRows(EngineSpec spec) {
        this.spec = spec;
        int[] keys = spec.flow().keyIndexes();
        keyFields = new int[keys.length];
        keyGetters = new RowData.FieldGetter[keys.length];
        for (int i = 0; i < keys.length; i++) {
            keyFields[i] = spec.baseFields()[keys[i]];
            keyGetters[i] =
                    RowData.createFieldGetter(
                            spec.inputType().getTypeAt(keyFields[i]), keyFields[i]);
        }
        version =
                RowData.createFieldGetter(
                        spec.inputType().getTypeAt(spec.field(ControlColumn.SEQUENCE)),
                        SnapshotMarks.SEQUENCE);
        systemSequence =
                spec.field(ControlColumn.SYSTEM_SEQUENCE) < 0
                        ? null
                        : RowData.createFieldGetter(
                                spec.inputType()
                                        .getTypeAt(spec.field(ControlColumn.SYSTEM_SEQUENCE)),
                                SnapshotMarks.SYSTEM_SEQUENCE);
    }

    /** Whether every key column of the row is set (a null key is no key to hold). */
    boolean hasKey(RowData row) {
        for (int f : keyFields) {
            // the null bit, as the decoder reads it: a NOT NULL type's getter ignores it
            if (row.isNullAt(f)) {
                return false;
            }
        }
        return true;
    }

    /** The row's key columns. */
    Object[] keyOf(RowData row) {
        Object[] key = new Object[keyFields.length];
        for (int i = 0; i < key.length; i++) {
            key[i] = keyGetters[i].getFieldOrNull(row);
        }
        return key;
    }

    /**
     * A delete of the key (null: no key columns set) at the sequences of a complete snapshot's mark
     * ({@link SnapshotMarks}).
     */
    RowData delete(Object[] key, RowData mark) {
        GenericRowData row = new GenericRowData(RowKind.DELETE, spec.inputType().getFieldCount());
        for (int i = 0; key != null && i < keyFields.length; i++) {
            row.setField(keyFields[i], key[i]);
        }
        row.setField(spec.field(ControlColumn.SEQUENCE), version.getFieldOrNull(mark));
        if (systemSequence != null) {
            row.setField(
                    spec.field(ControlColumn.SYSTEM_SEQUENCE), systemSequence.getFieldOrNull(mark));
        }
        return row;
    }
}
