package dev.autocdc.operators.flink.state;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.Test;

/** Which savepoint serializers {@link WideningRowSerializer} restores from, and its bytes. */
class WideningRowSerializerTest {
    private static final RowType TWO =
            RowType.of(new LogicalType[] {new IntType(false), VarCharType.STRING_TYPE});

    private static RowType plus(LogicalType added) {
        return RowType.of(new LogicalType[] {new IntType(false), VarCharType.STRING_TYPE, added});
    }

    /** The new serializer's snapshot resolved against a savepoint's, written and read back. */
    private static TypeSerializerSchemaCompatibility<RowData> against(
            RowType now, TypeSerializerSnapshot<RowData> old) throws Exception {
        DataOutputSerializer out = new DataOutputSerializer(64);
        old.writeSnapshot(out);
        TypeSerializerSnapshot<RowData> read =
                old instanceof WideningRowSerializer.Snapshot
                        ? new WideningRowSerializer.Snapshot()
                        : new RowDataSerializer.RowDataSerializerSnapshot();
        read.readSnapshot(
                old.getCurrentVersion(),
                new DataInputDeserializer(out.getCopyOfBuffer()),
                WideningRowSerializerTest.class.getClassLoader());
        return new WideningRowSerializer(now)
                .snapshotConfiguration()
                .resolveSchemaCompatibility(read);
    }

    @Test
    void theSameTypesRestoreAsTheyAreAndAddedNullableColumnsAfterMigration() throws Exception {
        var rowData = new RowDataSerializer(TWO).snapshotConfiguration();
        var widening = new WideningRowSerializer(TWO).snapshotConfiguration();
        assertThat(against(TWO, rowData).isCompatibleAsIs()).isTrue();
        assertThat(against(TWO, widening).isCompatibleAsIs()).isTrue();
        assertThat(against(plus(new IntType()), rowData).isCompatibleAfterMigration()).isTrue();
        assertThat(against(plus(new IntType()), widening).isCompatibleAfterMigration()).isTrue();
    }

    @Test
    void aNotNullColumnAddedAChangedTypeOrAColumnDroppedIsIncompatible() throws Exception {
        var rowData = new RowDataSerializer(TWO).snapshotConfiguration();
        assertThat(against(plus(new IntType(false)), rowData).isIncompatible()).isTrue();
        RowType changed =
                RowType.of(new LogicalType[] {new IntType(false), new IntType(), new IntType()});
        assertThat(against(changed, rowData).isIncompatible()).isTrue();
        var wider = new RowDataSerializer(plus(new IntType())).snapshotConfiguration();
        assertThat(against(TWO, wider).isIncompatible()).isTrue();
    }

    @Test
    void writesRowDataSerializersBytesAndPadsANarrowerRow() throws Exception {
        GenericRowData row = GenericRowData.of(7, StringData.fromString("a"));
        DataOutputSerializer theirs = new DataOutputSerializer(64);
        new RowDataSerializer(TWO).serialize(row, theirs);
        DataOutputSerializer ours = new DataOutputSerializer(64);
        new WideningRowSerializer(TWO).serialize(row, ours);
        assertThat(ours.getCopyOfBuffer()).isEqualTo(theirs.getCopyOfBuffer());

        WideningRowSerializer wide = new WideningRowSerializer(plus(new IntType()));
        DataOutputSerializer padded = new DataOutputSerializer(64);
        wide.serialize(row, padded);
        RowData back = wide.deserialize(new DataInputDeserializer(padded.getCopyOfBuffer()));
        assertThat(back.getArity()).isEqualTo(3);
        assertThat(back.getInt(0)).isEqualTo(7);
        assertThat(back.getString(1).toString()).isEqualTo("a");
        assertThat(back.isNullAt(2)).isTrue();
        assertThat(wide.widen(row).isNullAt(2)).isTrue();
        assertThat(wide.copy(row).getArity()).isEqualTo(3);
    }
}
