package dev.autocdc.operators.flink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.OperatorRun.Backend;
import dev.autocdc.operators.flink.runtime.DeadLetter;
import dev.autocdc.operators.flink.runtime.EventDecoder;
import dev.autocdc.operators.flink.runtime.SideOutputs;
import dev.autocdc.operators.flink.snapshot.SnapshotCompletion;
import dev.autocdc.operators.flink.snapshot.SnapshotMarks;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.reference.SnapshotReference.SnapshotRow;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.junit.jupiter.api.Test;

/**
 * The safety valve: a snapshot with too few rows against the last complete one is held, with every
 * later snapshot, and its rows are shown in the late events while they wait; a restore with a
 * larger threshold applies them. And the completion step: marks summed over source subtasks,
 * completed in order as the watermark passes them, its state restored.
 */
class SnapshotValveTest {
    private static final EngineSpec SPEC = SnapshotFlowTest.spec(TargetType.SCD2);

    private static RowData mark(int version, long rows) {
        GenericRowData m = new GenericRowData(6);
        m.setField(SnapshotMarks.ID, new EventDecoder(SPEC, null).snapshotId(row(0, version)));
        m.setField(SnapshotMarks.TIME, (long) version);
        m.setField(SnapshotMarks.SEQUENCE, version);
        m.setField(SnapshotMarks.SYSTEM_SEQUENCE, null);
        m.setField(SnapshotMarks.ROWS, rows);
        m.setField(SnapshotMarks.HELD, false);
        return m;
    }

    private static RowData row(int key, int version) {
        return TruncateTest.OperatorRunRows.of(
                SPEC.inputType(), new Object[] {key, "a", "x", version});
    }

    private static OneInputStreamOperatorTestHarness<RowData, RowData> completion(
            Double threshold, OperatorSubtaskState restore) throws Exception {
        var harness =
                new OneInputStreamOperatorTestHarness<>(
                        new SnapshotCompletion(SnapshotMarks.markType(SPEC), "f", threshold));
        harness.setup(new RowDataSerializer(SnapshotMarks.markType(SPEC)));
        if (restore != null) {
            harness.initializeState(restore);
        }
        harness.open();
        return harness;
    }

    /** The marks emitted (as "version rows held") and the watermarks forwarded, in order. */
    private static List<String> output(OneInputStreamOperatorTestHarness<RowData, RowData> h) {
        List<String> out = new ArrayList<>();
        for (Object o : h.getOutput()) {
            if (o instanceof Watermark w) {
                out.add("wm " + w.getTimestamp());
            } else {
                @SuppressWarnings("unchecked")
                RowData m = ((StreamRecord<RowData>) o).getValue();
                out.add(
                        m.getInt(SnapshotMarks.SEQUENCE)
                                + " "
                                + m.getLong(SnapshotMarks.ROWS)
                                + (m.getBoolean(SnapshotMarks.HELD) ? " held" : ""));
            }
        }
        h.getOutput().clear();
        return out;
    }

    @Test
    void marksOfEverySubtaskAreSummedAndCompletedInOrderAsTheWatermarkPasses() throws Exception {
        try (var h = completion(null, null)) {
            h.processElement(new StreamRecord<>(mark(2, 3)));
            h.processElement(new StreamRecord<>(mark(1, 5)));
            h.processElement(new StreamRecord<>(mark(2, 4))); // another subtask's share
            h.processWatermark(new Watermark(1));
            assertThat(output(h)).containsExactly("1 5", "wm 1");
            h.processElement(new StreamRecord<>(mark(1, 9))); // too late: dropped
            h.processWatermark(new Watermark(5));
            assertThat(output(h)).containsExactly("2 7", "wm 5");
        }
    }

    @Test
    void aSnapshotTooSmallIsHeldWithEveryLaterOneUntilARestoreRaisesTheThreshold()
            throws Exception {
        OperatorSubtaskState state;
        try (var h = completion(0.3, null)) {
            h.processElement(new StreamRecord<>(mark(1, 100)));
            h.processWatermark(new Watermark(1));
            assertThat(output(h)).containsExactly("1 100", "wm 1");
            h.processElement(new StreamRecord<>(mark(2, 69))); // 31% fewer: held
            h.processElement(new StreamRecord<>(mark(3, 100)));
            h.processWatermark(new Watermark(2));
            h.processWatermark(new Watermark(3));
            h.processWatermark(new Watermark(9));
            // one notice; the watermark stays below the held snapshot, so nothing later applies
            assertThat(output(h)).containsExactly("2 69 held");
            state = h.snapshot(1, 1);
        }
        try (var h = completion(0.3, state)) { // the same threshold: held again
            h.processWatermark(new Watermark(9));
            // a restored job's watermarks start again; this one stops below the held snapshot
            assertThat(output(h)).containsExactly("2 69 held", "wm 1");
            state = h.snapshot(2, 2);
        }
        try (var h = completion(0.5, state)) { // raised: applied, and the next one too
            h.processWatermark(new Watermark(9));
            assertThat(output(h)).containsExactly("2 69", "3 100", "wm 9");
        }
    }

    @Test
    void theKeyedStepShowsAHeldSnapshotsRowsAndKeepsThemWaiting() throws Exception {
        for (Backend backend : Backend.values()) {
            try (SnapshotRun run = new SnapshotRun(SPEC, backend)) {
                List<SnapshotRow> first = new ArrayList<>();
                for (int k = 1; k <= 4; k++) {
                    first.add(new SnapshotRow(k, 1, null, Arrays.asList("a", "x")));
                }
                run.rows(first);
                run.complete(run.mark(first.get(0)));
                run.watermark(1);
                SnapshotRow kept = new SnapshotRow(1, 2, null, Arrays.asList("a", "x"));
                run.rows(List.of(kept));
                RowData held = run.mark(kept);
                ((GenericRowData) held).setField(SnapshotMarks.HELD, true);
                run.complete(held);
                run.drain();
                assertThat(run.lateEvents()).isOne();
                assertThat(
                                run.harness
                                        .getSideOutput(SideOutputs.LATE_EVENTS)
                                        .peek()
                                        .getValue()
                                        .reason)
                        .isEqualTo(DeadLetter.SNAPSHOT_HELD);
                assertThat(run.table.rows()).hasSize(4); // nothing applied
                // released (after a restore with a larger threshold): the row waited
                run.complete(run.mark(kept));
                run.watermark(2);
                run.drain();
                assertThat(run.table.rows())
                        .containsExactlyInAnyOrder(
                                Arrays.asList(1, "a", "x", 1, null),
                                Arrays.asList(2, "a", "x", 1, 2),
                                Arrays.asList(3, "a", "x", 1, 2),
                                Arrays.asList(4, "a", "x", 1, 2));
            }
        }
    }

    /**
     * The held notice travels on the broadcast channel and may come before rows of its snapshot
     * sent earlier (a bounded run's last watermark completes the marks while the rows are still on
     * the keyed channel): those rows are copied as they arrive. A restore that holds the snapshot
     * again repeats the notice; the rows that waited were shown already and are not copied twice.
     */
    @Test
    void rowsAfterTheHeldNoticeAreShownAndARestoredNoticeCopiesNothingTwice() throws Exception {
        for (Backend backend : Backend.values()) {
            OperatorSubtaskState state;
            ChangelogTable table;
            List<SnapshotRow> first = new ArrayList<>();
            for (int k = 1; k <= 4; k++) {
                first.add(new SnapshotRow(k, 1, null, Arrays.asList("a", "x")));
            }
            SnapshotRow early = new SnapshotRow(1, 2, null, Arrays.asList("a", "x"));
            SnapshotRow late = new SnapshotRow(2, 2, null, Arrays.asList("b", "x"));
            try (SnapshotRun run = new SnapshotRun(SPEC, backend)) {
                run.rows(first);
                run.complete(run.mark(first.get(0)));
                run.watermark(1);
                run.rows(List.of(early));
                RowData held = run.mark(early);
                ((GenericRowData) held).setField(SnapshotMarks.HELD, true);
                run.complete(held);
                assertThat(run.lateEvents()).isOne(); // the row that waited
                run.rows(List.of(late)); // after the notice
                assertThat(run.lateEvents()).isEqualTo(2);
                assertThat(
                                run.harness.getSideOutput(SideOutputs.LATE_EVENTS).stream()
                                        .map(r -> r.getValue().reason)
                                        .distinct())
                        .containsExactly(DeadLetter.SNAPSHOT_HELD);
                run.drain();
                assertThat(run.table.rows()).hasSize(4); // nothing applied
                state = run.snapshot(1);
                table = run.table;
            }
            try (SnapshotRun run = new SnapshotRun(SPEC, backend, state, table)) {
                RowData held = run.mark(early);
                ((GenericRowData) held).setField(SnapshotMarks.HELD, true);
                run.complete(held); // the restored completion step holds it again
                assertThat(run.lateEvents()).isZero();
                run.complete(run.mark(early)); // a larger threshold: released
                run.watermark(2);
                run.drain();
                assertThat(run.table.rows())
                        .containsExactlyInAnyOrder(
                                Arrays.asList(1, "a", "x", 1, null),
                                Arrays.asList(2, "a", "x", 1, 2),
                                Arrays.asList(2, "b", "x", 2, null),
                                Arrays.asList(3, "a", "x", 1, 2),
                                Arrays.asList(4, "a", "x", 1, 2));
            }
        }
    }
}
