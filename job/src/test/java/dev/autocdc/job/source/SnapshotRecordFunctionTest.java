package dev.autocdc.job.source;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.apache.flink.formats.common.TimestampFormat;
import org.apache.flink.formats.json.JsonRowDataDeserializationSchema;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;

class SnapshotRecordFunctionTest {

    private static final DataType VALUE =
            DataTypes.ROW(
                    DataTypes.FIELD("id", DataTypes.INT()),
                    DataTypes.FIELD("day", DataTypes.INT()));

    private static SnapshotRecordFunction function() {
        RowType type = (RowType) VALUE.getLogicalType();
        return new SnapshotRecordFunction(
                new JsonRowDataDeserializationSchema(
                        type, InternalTypeInfo.of(type), false, false, TimestampFormat.ISO_8601),
                VALUE,
                ExactNumbers.of("json", false, type));
    }

    private static byte[] json(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aRecordTheDecodingStepRefusesMovesNoWatermark() {
        SnapshotRecordFunction f = function();
        RowData row = f.eval(json("{\"id\": 1, \"day\": 9}"));
        assertThat(row.getInt(1)).isEqualTo(9);
        // the format reads 9.5 as 9; the decoding step sends the record to the dead letters
        assertThat(f.eval(json("{\"id\": 1, \"day\": 9.5}"))).isNull();
        assertThat(f.eval(json("{\"id\": 1, \"day\":"))).isNull();
        assertThat(f.eval(null)).isNull();
    }
}
