package dev.autocdc.operators.flink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.OperatorRun.Backend;
import dev.autocdc.operators.reference.SnapshotReference.SnapshotRow;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The cost of a snapshot newer than every applied one, counted rather than timed (SPEC §10): the
 * same state accesses per row present with 1,000 keys in state as with 100,000 (RocksDB: 10,000), a
 * vanished key found at the cost of a row, and keys that stay absent costing nothing.
 */
class SnapshotScaleTest {

    private static List<SnapshotRow> snapshot(int version, int keys, int changedEvery, int skip) {
        List<SnapshotRow> rows = new ArrayList<>(keys);
        for (int k = 0; k < keys; k++) {
            if (skip > 0 && k % skip == 0) {
                continue; // vanished
            }
            String city = changedEvery > 0 && k % changedEvery == 0 ? "v" + version : "v1";
            rows.add(new SnapshotRow(k, version, null, Arrays.asList(city, "x")));
        }
        return rows;
    }

    /** Feeds a whole snapshot, completes it, and returns the state accesses it cost. */
    private static long apply(SnapshotRun run, List<SnapshotRow> rows, int version)
            throws Exception {
        StateAccessCounter counter = run.function.stateAccesses();
        counter.reset();
        run.rows(rows);
        run.complete(run.mark(new SnapshotRow(0, version, null, Arrays.asList("m", "m"))));
        run.watermark(version);
        run.harness.getOutput().clear(); // the changes are not the point here
        return counter.total();
    }

    private record Costs(double perRow, double perRowWithVanished, double perRowBesideAbsent) {}

    private static Costs costs(TargetType type, Backend backend, int keys) throws Exception {
        try (SnapshotRun run = new SnapshotRun(SnapshotFlowTest.spec(type), backend)) {
            apply(run, snapshot(1, keys, 0, 0), 1);
            // every key present, 1 in 10 changed
            List<SnapshotRow> second = snapshot(2, keys, 10, 0);
            double perRow = (double) apply(run, second, 2) / second.size();
            // 1 in 100 vanished: each found at about the cost of a row
            List<SnapshotRow> third = snapshot(3, keys, 10, 100);
            double withVanished = (double) apply(run, third, 3) / keys;
            // the vanished keys stay absent: they cost nothing
            List<SnapshotRow> fourth = snapshot(4, keys, 10, 100);
            double besideAbsent = (double) apply(run, fourth, 4) / fourth.size();
            return new Costs(perRow, withVanished, besideAbsent);
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aNewerSnapshotCostsTheSamePerRowWhateverTheKeysInState(Backend backend) throws Exception {
        int many = backend == Backend.ROCKSDB ? 10_000 : 100_000;
        for (TargetType type : List.of(TargetType.SCD1, TargetType.SCD2)) {
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
}
