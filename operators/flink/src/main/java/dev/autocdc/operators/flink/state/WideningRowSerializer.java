package dev.autocdc.operators.flink.state;

import java.io.IOException;
import java.util.Arrays;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * Stored input rows of a row type that may have gained nullable columns at its end since a
 * savepoint (a source column added, a control column of a newer build): a restore reads the old
 * rows and each reads as null in the new columns. The bytes are {@link RowDataSerializer}'s, so
 * that state it wrote restores as it is.
 *
 * <p>Compatibility with the serializer of a savepoint ({@link Snapshot}, or {@link
 * RowDataSerializer}'s own snapshot): as it is when the types are the same; after migration when
 * the old types are the first of the new ones and every added type is nullable (the backend reads
 * each old row and writes it again, padded by {@link #widen}); else incompatible. The heap backend
 * may keep the rows it restored as they were read, so a reader of this state calls {@link #widen}
 * on what it reads.
 */
public final class WideningRowSerializer extends TypeSerializer<RowData> {
    private static final long serialVersionUID = 1L;

    private final LogicalType[] types;
    private final RowDataSerializer rows;

    public WideningRowSerializer(RowType type) {
        this(type.getChildren().toArray(new LogicalType[0]));
    }

    private WideningRowSerializer(LogicalType[] types) {
        this.types = types;
        this.rows = new RowDataSerializer(types);
    }

    /**
     * {@code row} with the serializer's arity: a row of an older, narrower type gets nulls in the
     * columns it lacks; any other row is returned as it is.
     */
    public RowData widen(RowData row) {
        if (row == null || row.getArity() >= types.length) {
            return row;
        }
        GenericRowData wide = new GenericRowData(row.getRowKind(), types.length);
        for (int i = 0; i < row.getArity(); i++) {
            wide.setField(i, RowData.createFieldGetter(types[i], i).getFieldOrNull(row));
        }
        return wide;
    }

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public TypeSerializer<RowData> duplicate() {
        return new WideningRowSerializer(types);
    }

    @Override
    public RowData createInstance() {
        return rows.createInstance();
    }

    @Override
    public RowData copy(RowData from) {
        return rows.copy(widen(from));
    }

    @Override
    public RowData copy(RowData from, RowData reuse) {
        return rows.copy(widen(from), reuse);
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(RowData record, DataOutputView target) throws IOException {
        rows.serialize(widen(record), target);
    }

    @Override
    public RowData deserialize(DataInputView source) throws IOException {
        return rows.deserialize(source);
    }

    @Override
    public RowData deserialize(RowData reuse, DataInputView source) throws IOException {
        return rows.deserialize(reuse, source);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        rows.copy(source, target);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof WideningRowSerializer w && Arrays.equals(types, w.types);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(types);
    }

    @Override
    public TypeSerializerSnapshot<RowData> snapshotConfiguration() {
        return new Snapshot(types);
    }

    /**
     * The snapshot: {@link RowDataSerializer}'s snapshot of the same types, after its version
     * ({@code int(version) bytes(RowDataSerializer's snapshot)}).
     */
    public static final class Snapshot implements TypeSerializerSnapshot<RowData> {
        private LogicalType[] types;
        private RowDataSerializer restored;

        /** For Flink's reflective restore. */
        public Snapshot() {}

        Snapshot(LogicalType[] types) {
            this.types = types;
        }

        @Override
        public int getCurrentVersion() {
            return 1;
        }

        @Override
        public void writeSnapshot(DataOutputView out) throws IOException {
            TypeSerializerSnapshot<RowData> inner =
                    new RowDataSerializer(types).snapshotConfiguration();
            out.writeInt(inner.getCurrentVersion());
            inner.writeSnapshot(out);
        }

        @Override
        public void readSnapshot(int readVersion, DataInputView in, ClassLoader classLoader)
                throws IOException {
            RowDataSerializer.RowDataSerializerSnapshot inner =
                    new RowDataSerializer.RowDataSerializerSnapshot();
            inner.readSnapshot(in.readInt(), in, classLoader);
            restored = inner.restoreSerializer();
        }

        @Override
        public TypeSerializer<RowData> restoreSerializer() {
            return restored != null ? restored : new WideningRowSerializer(types);
        }

        @Override
        public TypeSerializerSchemaCompatibility<RowData> resolveSchemaCompatibility(
                TypeSerializerSnapshot<RowData> old) {
            if (!(old instanceof Snapshot)
                    && !(old instanceof RowDataSerializer.RowDataSerializerSnapshot)) {
                return TypeSerializerSchemaCompatibility.incompatible();
            }
            TypeSerializer<RowData> before = old.restoreSerializer();
            if (before instanceof WideningRowSerializer w) {
                before = w.rows;
            }
            RowDataSerializer was = (RowDataSerializer) before;
            if (was.equals(new RowDataSerializer(types))) {
                return TypeSerializerSchemaCompatibility.compatibleAsIs();
            }
            int arity = was.getArity();
            if (arity >= types.length
                    || !was.equals(new RowDataSerializer(Arrays.copyOf(types, arity)))) {
                return TypeSerializerSchemaCompatibility.incompatible();
            }
            for (int i = arity; i < types.length; i++) {
                if (!types[i].isNullable()) {
                    return TypeSerializerSchemaCompatibility.incompatible();
                }
            }
            return TypeSerializerSchemaCompatibility.compatibleAfterMigration();
        }
    }
}
