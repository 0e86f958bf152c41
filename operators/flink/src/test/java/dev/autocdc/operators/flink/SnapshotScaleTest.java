package dev.autocdc.operators.flink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.OperatorRun.Backend;
import dev.autocdc.operators.flink.snapshot.SnapshotMarks;
import dev.autocdc.operators.flink.state.StateAccessCounter;
import dev.autocdc.operators.reference.SnapshotReference.SnapshotRow;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The cost of snapshots, counted rather than timed (semantics §10). A snapshot newer than every
 * applied one: the same state accesses per row present with 1,000 keys in state as with 10,000, a
 * vanished key found at the cost of a row, and keys that stay absent costing nothing, for all three
 * target types. Ten times the keys is enough: the accesses are counted, not timed, so a cost that
 * grew with the keys in state would differ by a factor near ten. A bitemporal snapshot that
 * restates an older version: one scan, which reads every key once and catches up only those present
 * at the restated version.
 */
class SnapshotScaleTest {

    /** Bitemporal: taken at system sequence 100 + version, so each is newer than the last. */
    private static List<SnapshotRow> snapshot(
            TargetType type, int version, int keys, int changedEvery, int skip) {
        return snapshot(
                type,
                version,
                type == TargetType.BITEMPORAL ? 100 + version : null,
                keys,
                changedEvery,
                skip);
    }

    private static List<SnapshotRow> snapshot(
            TargetType type, int version, Integer sys, int keys, int changedEvery, int skip) {
        List<SnapshotRow> rows = new ArrayList<>(keys);
        for (int k = 0; k < keys; k++) {
            if (skip > 0 && k % skip == 0) {
                continue; // vanished
            }
            String city = changedEvery > 0 && k % changedEvery == 0 ? "v" + version : "v1";
            rows.add(new SnapshotRow(k, version, sys, Arrays.asList(city, "x")));
        }
        return rows;
    }

    /** Feeds a whole snapshot, completes it, and returns the state accesses it cost. */
    private static long apply(SnapshotRun run, List<SnapshotRow> rows) throws Exception {
        return apply(run, rows, false);
    }

    /**
     * @param justBelow whether the watermark moves to just below the snapshot after its rows, as a
     *     source's does once it reads them
     */
    private static long apply(SnapshotRun run, List<SnapshotRow> rows, boolean justBelow)
            throws Exception {
        StateAccessCounter counter = run.function.stateAccesses();
        counter.reset();
        run.rows(rows);
        RowData mark = run.mark(rows.get(0));
        if (justBelow) {
            run.watermark(mark.getLong(SnapshotMarks.TIME) - 1);
        }
        run.complete(mark);
        run.watermark(mark.getLong(SnapshotMarks.TIME));
        assertNoRecordBehindAWatermark(run.harness.getOutput());
        run.harness.getOutput().clear(); // the changes are not the point here
        return counter.total();
    }

    /**
     * Every record comes after the watermarks below its time only: a record behind a watermark sent
     * before it would be late for an event-time operation downstream.
     */
    private static void assertNoRecordBehindAWatermark(Collection<Object> output) {
        long sent = Long.MIN_VALUE;
        for (Object o : output) {
            if (o instanceof Watermark w) {
                sent = Math.max(sent, w.getTimestamp());
            } else if (o instanceof StreamRecord<?> r) {
                assertThat(r.getTimestamp())
                        .as("a record after watermark %d", sent)
                        .isGreaterThan(sent);
            }
        }
    }

    private record Costs(double perRow, double perRowWithVanished, double perRowBesideAbsent) {}

    private static Costs costs(TargetType type, Backend backend, int keys) throws Exception {
        try (SnapshotRun run = new SnapshotRun(SnapshotFlowTest.spec(type), backend)) {
            apply(run, snapshot(type, 1, keys, 0, 0));
            // every key present, 1 in 10 changed
            List<SnapshotRow> second = snapshot(type, 2, keys, 10, 0);
            double perRow = (double) apply(run, second) / second.size();
            // 1 in 100 vanished: each found at about the cost of a row
            List<SnapshotRow> third = snapshot(type, 3, keys, 10, 100);
            double withVanished = (double) apply(run, third) / keys;
            // the vanished keys stay absent: they cost nothing
            List<SnapshotRow> fourth = snapshot(type, 4, keys, 10, 100);
            double besideAbsent = (double) apply(run, fourth) / fourth.size();
            return new Costs(perRow, withVanished, besideAbsent);
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aNewerSnapshotCostsTheSamePerRowWhateverTheKeysInState(Backend backend) throws Exception {
        int many = 10_000;
        for (TargetType type : TargetType.values()) {
            Costs few = costs(type, backend, 1_000);
            Costs lots = costs(type, backend, many);
            System.out.println(
                    "snapshot cost, "
                            + type
                            + " on "
                            + backend
                            + ": state accesses per row "
                            + few
                            + " with 1,000 keys, "
                            + lots
                            + " with "
                            + many);
            assertThat(lots.perRow()).isEqualTo(few.perRow());
            assertThat(lots.perRowWithVanished()).isEqualTo(few.perRowWithVanished());
            assertThat(lots.perRowBesideAbsent()).isEqualTo(few.perRowBesideAbsent());
            // small constants: the pending row, the applied snapshot, the target's own accesses
            assertThat(few.perRow()).isLessThan(12);
            assertThat(few.perRowWithVanished()).isLessThan(12);
        }
    }

    /**
     * A source's watermark moves to just below a snapshot as its rows come, then to it once it is
     * complete. The first move passes no complete snapshot, so it fires no key's timer: a snapshot
     * costs the same state accesses, and its keys' timers fire once, with or without it (before the
     * timers were held back, each key present ran a catch-up there that found nothing to do).
     */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void aWatermarkBelowTheNextSnapshotRunsNoKey(Backend backend) throws Exception {
        int keys = 1_000;
        for (TargetType type : TargetType.values()) {
            long[] accesses = new long[2];
            long[] fired = new long[2];
            for (int justBelow = 0; justBelow < 2; justBelow++) {
                try (SnapshotRun run = new SnapshotRun(SnapshotFlowTest.spec(type), backend)) {
                    apply(run, snapshot(type, 1, keys, 0, 0), justBelow == 1);
                    long before = run.function.timerRuns();
                    // version 10: just below it is past the timers the keys re-armed at 1
                    accesses[justBelow] =
                            apply(run, snapshot(type, 10, keys, 10, 100), justBelow == 1);
                    fired[justBelow] = run.function.timerRuns() - before;
                }
            }
            assertThat(accesses[1]).as(type + ": state accesses").isEqualTo(accesses[0]);
            assertThat(fired[1]).as(type + ": timers fired").isEqualTo(fired[0]);
            assertThat(fired[0]).as(type + ": timers fired").isEqualTo(keys);
        }
    }

    /**
     * A restated version: after snapshots of versions 1, 2 and 3 (1 in 100 keys gone from 3 on),
     * version 2 taken again without 1 in 50 keys. The watermark that passes it scans once, reading
     * each key's progress once; the keys it deletes are present at version 2, so they catch up, and
     * so do the rest (present there too); keys absent at version 2 would be read and left.
     */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void aRestatedVersionScansEveryKeyOnceAndCountsIt(Backend backend) throws Exception {
        int keys = backend == Backend.ROCKSDB ? 2_000 : 20_000;
        TargetType type = TargetType.BITEMPORAL;
        try (SnapshotRun run = new SnapshotRun(SnapshotFlowTest.spec(type), backend)) {
            // one more key at version 1 alone: absent at version 2 and at the newest
            apply(run, snapshot(type, 1, keys + 1, 0, 0));
            apply(run, snapshot(type, 2, keys, 0, 0));
            apply(run, snapshot(type, 3, keys, 10, 100));
            assertThat(run.operator.scans()).isZero();
            List<SnapshotRow> restated = snapshot(type, 2, 106, keys, 0, 50);
            long accesses = apply(run, restated);
            assertThat(run.operator.scans()).isEqualTo(1);
            assertThat(run.operator.scannedKeys()).isEqualTo(keys + 1);
            // the deleted keys and those with rows at version 2: every key present there
            assertThat(run.function.scanCatchUps()).isEqualTo(keys);
            System.out.println(
                    "restated snapshot on "
                            + backend
                            + ": "
                            + accesses
                            + " state accesses for "
                            + (keys + 1)
                            + " keys in state ("
                            + (double) accesses / (keys + 1)
                            + " per key)");
            // once per key: the scan's catch-up deletes the timer the key's rows had set
            assertThat((double) accesses / (keys + 1)).isLessThan(13);
        }
    }
}
