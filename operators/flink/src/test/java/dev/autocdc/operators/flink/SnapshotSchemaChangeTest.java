package dev.autocdc.operators.flink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.OperatorRun.Backend;
import dev.autocdc.operators.flink.spec.EngineOptions;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.reference.SnapshotReference.SnapshotRow;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.Test;

/**
 * A flow from snapshots restores the rows waiting for their snapshot after its source gained a
 * column at the end (docs/reliability.md, schema changes): they read as null in it, and the
 * snapshot applies when it completes.
 */
class SnapshotSchemaChangeTest {
    private static EngineSpec withColumnW() {
        return EngineSpec.builder(
                        "snapshots",
                        TargetType.SCD2,
                        RowType.of(
                                new LogicalType[] {
                                    new IntType(),
                                    VarCharType.STRING_TYPE,
                                    VarCharType.STRING_TYPE,
                                    new IntType(false),
                                    VarCharType.STRING_TYPE
                                },
                                new String[] {"id", "v1", "v2", "__seq", "w"}))
                .keys("id")
                .fromSnapshot()
                .tombstoneRetention(EngineOptions.DEFAULT_TOMBSTONE_RETENTION)
                .build();
    }

    @Test
    void waitingRowsRestoreAfterTheSourceGainedAColumnAndApplyWithItNull() throws Exception {
        SnapshotRow row = new SnapshotRow(1, 1, null, Arrays.asList("a", "x"));
        for (Backend backend : Backend.values()) {
            OperatorSubtaskState state;
            try (SnapshotRun run =
                    new SnapshotRun(SnapshotFlowTest.spec(TargetType.SCD2), backend)) {
                run.rows(List.of(row));
                state = run.snapshot(1);
            }
            OperatorSubtaskState widened;
            ChangelogTable table;
            try (SnapshotRun run = new SnapshotRun(withColumnW(), backend, state)) {
                run.complete(run.mark(row));
                run.watermark(1);
                run.drain();
                assertThat(run.table.rows())
                        .as(backend.name())
                        .containsExactly(Arrays.asList(1, "a", "x", null, 1, null));
                run.harness.processElement(
                        new StreamRecord<>(
                                TruncateTest.OperatorRunRows.of(
                                        run.spec.inputType(), new Object[] {2, "b", "y", 2, "z"})));
                widened = run.snapshot(2);
                table = run.table;
            }
            try (SnapshotRun run = new SnapshotRun(withColumnW(), backend, widened, table)) {
                run.complete(run.mark(new SnapshotRow(2, 2, null, Arrays.asList("b", "y"))));
                run.watermark(2);
                run.drain();
                assertThat(run.table.rows())
                        .as(backend.name())
                        .containsExactlyInAnyOrder(
                                Arrays.asList(1, "a", "x", null, 1, 2),
                                Arrays.asList(2, "b", "y", "z", 2, null));
            }
        }
    }
}
