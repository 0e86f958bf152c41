package dev.autocdc.operators.flink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.OperatorRun.Backend;
import dev.autocdc.operators.flink.runtime.DeadLetter;
import dev.autocdc.operators.flink.spec.ControlColumn;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.spec.OutputMode;
import dev.autocdc.operators.reference.ReferenceModel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Erasing a key ({@link ControlColumn#ERASE}) on RocksDB, through a restore: random events over
 * three keys with erasures among them. An erasure emits a {@code -D} of every row the key has in
 * the materialized table, and nothing else; afterwards the table equals the reference over each
 * key's events after its last erasure (a later event starts a new history); erasing every key at
 * the end leaves an empty table and no state at all.
 */
class EraseTest {

    @ParameterizedTest
    @EnumSource(TargetType.class)
    void anErasedKeyLeavesNoRowAndNoStateAndStartsAnew(TargetType type) throws Exception {
        Random random = new Random(5 + type.ordinal());
        int erasedRows = 0;
        for (int round = 0; round < 30; round++) {
            boolean ignoreNull = type != TargetType.BITEMPORAL && round % 2 == 1;
            // every third round with a write-back cache of two of the three keys
            EngineSpec spec = spec(type, ignoreNull, null, round % 3 == 2 ? 2 : 0);
            ChangelogTable table = new ChangelogTable(spec.targetPrimaryKey(), OutputMode.RETRACT);
            Map<Integer, List<ReferenceModel.Event>> sinceErased = new LinkedHashMap<>();
            List<Object[]> inputs = new ArrayList<>();
            int n = 10 + random.nextInt(40);
            for (int i = 0; i < n; i++) {
                int key = 1 + random.nextInt(3);
                if (random.nextInt(8) == 0) {
                    inputs.add(erasure(key, type));
                } else {
                    ReferenceModel.Event e = TwoValueFlows.randomEvent(random, type, key, 8);
                    inputs.add(TwoValueFlows.inputRow(e, type, true));
                }
            }
            for (int key = 1; key <= 3; key++) {
                inputs.add(erasure(key, type)); // the end: every key erased
            }
            int cut = random.nextInt(inputs.size() - 2); // before the final erasures
            OperatorSubtaskState state;
            try (OperatorRun run = OperatorRun.start(spec, Backend.ROCKSDB)) {
                erasedRows += apply(run, table, inputs.subList(0, cut), sinceErased, type);
                state = run.snapshot();
            }
            try (OperatorRun run = OperatorRun.restore(spec, Backend.ROCKSDB, state)) {
                erasedRows +=
                        apply(
                                run,
                                table,
                                inputs.subList(cut, inputs.size() - 3),
                                sinceErased,
                                type);
                List<ReferenceModel.Event> all = new ArrayList<>();
                sinceErased.values().forEach(all::addAll);
                assertThat(table.rows())
                        .as(type + " inputs " + inputs.stream().map(Arrays::toString).toList())
                        .isEqualTo(TwoValueFlows.reference(type, ignoreNull, all));
                erasedRows +=
                        apply(
                                run,
                                table,
                                inputs.subList(inputs.size() - 3, inputs.size()),
                                sinceErased,
                                type);
                assertThat(table.rows()).isEmpty();
                assertThat(run.keysWithState()).as("state left after erasing every key").isZero();
                assertThat(run.processingTimers()).as("timers left").isZero();
                assertThat(run.deadLetters()).isEmpty();
            }
        }
        assertThat(erasedRows).isGreaterThan(100);
    }

    /** Applies inputs one by one; returns the rows erasures deleted. */
    private static int apply(
            OperatorRun run,
            ChangelogTable table,
            List<Object[]> inputs,
            Map<Integer, List<ReferenceModel.Event>> sinceErased,
            TargetType type)
            throws Exception {
        int deleted = 0;
        for (Object[] in : inputs) {
            run.process(run.input(in));
            List<OperatorRun.Change> out = run.newOutput();
            boolean erase = (Boolean) in[in.length - 1];
            int key = (Integer) in[0];
            if (erase) {
                long before = table.rows().stream().filter(r -> r.get(0).equals(key)).count();
                assertThat(out).allMatch(c -> c.kind() == RowKind.DELETE);
                assertThat(out).hasSize((int) before);
                table.apply(out);
                assertThat(table.rows()).noneMatch(r -> r.get(0).equals(key));
                sinceErased.remove(key);
                deleted += out.size();
            } else {
                table.apply(out);
                sinceErased.computeIfAbsent(key, k -> new ArrayList<>()).add(event(in, type));
            }
        }
        return deleted;
    }

    private static Object[] erasure(int key, TargetType type) {
        List<Object> row = new ArrayList<>(Arrays.asList(key, null, null, null));
        if (type == TargetType.BITEMPORAL) {
            row.add(null);
        }
        row.add(null);
        row.add(true);
        return row.toArray();
    }

    private static ReferenceModel.Event event(Object[] in, TargetType type) {
        boolean bitemporal = type == TargetType.BITEMPORAL;
        return new ReferenceModel.Event(
                in[0],
                (Integer) in[3],
                bitemporal ? (Integer) in[4] : null,
                (Boolean) in[bitemporal ? 5 : 4]
                        ? ReferenceModel.Kind.DELETE
                        : ReferenceModel.Kind.UPSERT,
                Arrays.asList(in[1], in[2]),
                null);
    }

    /**
     * A key whose history left state (its tombstone expired) is erased from state, and the late
     * events say that its rows are in the target only; a later event of the key, even an old one,
     * starts a new history.
     */
    @ParameterizedTest
    @EnumSource(
            value = TargetType.class,
            names = {"SCD2", "BITEMPORAL"})
    void anErasureAfterTheHistoryLeftStateSaysSo(TargetType type) throws Exception {
        EngineSpec spec =
                spec(type, false, Duration.ofMillis(10), 1); // the expiry through the cache
        boolean bitemporal = type == TargetType.BITEMPORAL;
        try (OperatorRun run = OperatorRun.start(spec, Backend.ROCKSDB)) {
            run.setProcessingTime(0);
            run.process(run.input(row(bitemporal, 1, "a", 1, false)));
            run.process(run.input(row(bitemporal, 1, null, 2, true)));
            run.newOutput();
            run.setProcessingTime(20); // the tombstone expires: the history is in the sink only
            run.process(run.input(erasure(1, type)));
            assertThat(run.newOutput()).isEmpty();
            assertThat(run.lateEvents())
                    .singleElement()
                    .satisfies(l -> assertThat(l.reason).isEqualTo(DeadLetter.ERASED_BEYOND_STATE));
            assertThat(run.keysWithState()).isZero();
            assertThat(run.processingTimers()).isZero();
            run.process(run.input(row(bitemporal, 1, "b", 1, false)));
            assertThat(run.newOutput())
                    .singleElement()
                    .satisfies(c -> assertThat(c.kind()).isEqualTo(RowKind.INSERT));
        }
    }

    /** An input row: key, v1, a null v2, seq (and sys = seq), delete, no erasure. */
    private static Object[] row(boolean bitemporal, int key, String v, int seq, boolean delete) {
        List<Object> row = new ArrayList<>(Arrays.asList(key, v, null, seq));
        if (bitemporal) {
            row.add(seq);
        }
        row.add(delete);
        row.add(false);
        return row.toArray();
    }

    private static EngineSpec spec(
            TargetType type, boolean ignoreNull, Duration tombstones, int cacheKeys) {
        EngineSpec.Builder b = TwoValueFlows.builder("erase", type, true).stateCacheKeys(cacheKeys);
        if (tombstones != null) {
            b.tombstoneRetention(tombstones);
        }
        if (ignoreNull) {
            b.ignoreNullUpdates();
        }
        return b.build();
    }
}
