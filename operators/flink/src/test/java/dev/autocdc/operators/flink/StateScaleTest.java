package dev.autocdc.operators.flink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.OperatorRun.Backend;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.state.StateAccessCounter;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The scale of the state, counted rather than timed (issue item 5): in-order events cost the same
 * state accesses for a key with 1 version as for one with 10,000; a late event reads the block it
 * lands in (a walk back only beyond the blocks the recent entries name), not the length of the
 * history, on every backend.
 */
class StateScaleTest {
    private static final int HISTORY = 10_000;
    private static final int EVENTS = 2 * EngineSpec.DEFAULT_BLOCK_SIZE;

    private static EngineSpec spec(TargetType type) {
        List<LogicalType> types =
                new ArrayList<>(
                        List.of(new IntType(), VarCharType.STRING_TYPE, new IntType(false)));
        List<String> names = new ArrayList<>(List.of("id", "v", "__seq"));
        if (type == TargetType.BITEMPORAL) {
            types.add(new IntType(false));
            names.add("__sys");
        }
        types.add(new BooleanType());
        names.add("__delete");
        return EngineSpec.builder(
                        "scale",
                        type,
                        RowType.of(types.toArray(new LogicalType[0]), names.toArray(new String[0])))
                .keys("id")
                .build();
    }

    private static Object[] event(TargetType type, int key, String value, int seq) {
        return type == TargetType.BITEMPORAL
                ? new Object[] {key, value, seq, seq, false}
                : new Object[] {key, value, seq, false};
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void inOrderEventsCostTheSameWhateverTheHistoryLength(Backend backend) throws Exception {
        for (TargetType type : TargetType.values()) {
            try (OperatorRun run = OperatorRun.start(spec(type), backend)) {
                run.process(run.input(event(type, 1, "v0", 0)));
                for (int i = 0; i < HISTORY; i++) {
                    run.process(run.input(event(type, 2, "v" + i, i)));
                }
                // as many events as two SCD2 blocks: each key moves its recent entries into a block
                // as often
                StateAccessCounter counter = run.function().stateAccesses();
                counter.reset();
                for (int i = 1; i <= EVENTS; i++) {
                    run.process(run.input(event(type, 1, "next", HISTORY + i)));
                }
                String shortKey = counter.toString();
                counter.reset();
                for (int i = 1; i <= EVENTS; i++) {
                    run.process(run.input(event(type, 2, "next", HISTORY + i)));
                }
                String longKey = counter.toString();
                System.out.println(
                        EVENTS
                                + " in-order events, "
                                + type
                                + " on "
                                + backend
                                + ": 1 version: "
                                + shortKey
                                + " | "
                                + HISTORY
                                + " versions: "
                                + longKey);
                assertThat(longKey).as(type + " on " + backend).isEqualTo(shortKey);
                assertThat(counter.iteratorSteps()).isZero();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aLateEventReadsAsFarBackAsItLands(Backend backend) throws Exception {
        try (OperatorRun run = OperatorRun.start(spec(TargetType.SCD2), backend)) {
            // sequences 0, 10, 20, ...: room for late events between them
            for (int i = 0; i < HISTORY; i++) {
                run.process(run.input(1, "v" + i, i * 10, false));
            }
            StateAccessCounter counter = run.function().stateAccesses();
            StringBuilder report =
                    new StringBuilder(
                            "late SCD2 event on "
                                    + backend
                                    + ", history of "
                                    + HISTORY
                                    + " entries:");
            for (int back : new int[] {1, 10, 100, 1000}) {
                counter.reset();
                int seq = (HISTORY - back) * 10 - 5; // behind `back` entries
                run.process(run.input(1, "late" + back, seq, false));
                report.append(
                        String.format(
                                " %d back -> %d blocks read, %d map writes;",
                                back, counter.iteratorSteps(), counter.mapWrites()));
                if (back <= 10) {
                    // the recent entries name the newest blocks: only the one it lands in is read
                    // (and, at a block's start, the one before it), however many newer blocks lie
                    // between
                    assertThat(counter.iteratorSteps())
                            .as("blocks read for an event " + back + " back")
                            .isLessThanOrEqualTo(2);
                } else {
                    // further back, the walk from the last named block: the blocks holding the
                    // entries at or after the event's sequence (back of them, plus those inserted
                    // by earlier late events of this loop) and the one before it
                    int blocks = (back + 6) / EngineSpec.DEFAULT_BLOCK_SIZE;
                    assertThat(counter.iteratorSteps())
                            .as("blocks read for an event " + back + " back")
                            .isLessThanOrEqualTo(blocks + 2L)
                            .isGreaterThanOrEqualTo(back / EngineSpec.DEFAULT_BLOCK_SIZE / 2);
                }
                assertThat(counter.mapWrites()).as("one block changed").isLessThanOrEqualTo(2);
            }
            System.out.println(report);
        }
    }

    /**
     * The benchmark's W3 on one key: versions every 16 sequences, and one event in 10 landing
     * between two versions 1-10 back. Each reads the block it lands in by its key (and the one
     * before it when it lands before that block's oldest entry), and refolds no further than the
     * next version: 0.87 blocks per late event here, where walking back from the newest block read
     * 1.12 (the build before the chain keys).
     */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void lateEventsOneToTenBackReadAboutOneBlock(Backend backend) throws Exception {
        double perLateEvent = blocksReadPerLateEvent(backend, TargetType.SCD2, 3, 10, 8);
        System.out.printf(
                "W3 on one key, %s: late events read %.2f blocks each%n", backend, perLateEvent);
        assertThat(perLateEvent).isBetween(0.5, 1.0);
    }

    /**
     * The benchmark's W4 on one key: system time in arrival order, and one event in 20 a correction
     * of one of the 10 latest business times (a new value at that sequence): 1.15 blocks per
     * correction here (a correction at a block's oldest entry also reads the block before it),
     * where walking back from the newest block read 1.39 (the build before the chain keys).
     */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void correctionsOneToTenBackReadAboutOneBlock(Backend backend) throws Exception {
        double perCorrection = blocksReadPerLateEvent(backend, TargetType.BITEMPORAL, 4, 20, 0);
        System.out.printf(
                "W4 on one key, %s: corrections read %.2f blocks each%n", backend, perCorrection);
        assertThat(perCorrection).isBetween(0.5, 1.25);
    }

    /**
     * Blocks read per late event on one key: 4,000 versions, every 16 sequences, in order, and
     * before one version in {@code oneIn} a late event at {@code offset} after one of the 10
     * versions before it; system time (bitemporal) is the arrival order.
     */
    private static double blocksReadPerLateEvent(
            Backend backend, TargetType type, long seed, int oneIn, int offset) throws Exception {
        try (OperatorRun run = OperatorRun.start(spec(type), backend)) {
            Random random = new Random(seed);
            StateAccessCounter counter = run.function().stateAccesses();
            long lateEvents = 0;
            long blocksRead = 0;
            int system = 0;
            for (int v = 0; v < 4_000; v++) {
                if (v > 20 && random.nextInt(oneIn) == 0) {
                    counter.reset();
                    run.process(
                            run.input(
                                    arrival(
                                            type,
                                            "late" + v,
                                            (v - 1 - random.nextInt(10)) * 16 + offset,
                                            ++system)));
                    lateEvents++;
                    blocksRead += counter.iteratorSteps();
                }
                run.process(run.input(arrival(type, "v" + v, v * 16, ++system)));
            }
            return (double) blocksRead / lateEvents;
        }
    }

    private static Object[] arrival(TargetType type, String value, int seq, int system) {
        return type == TargetType.BITEMPORAL
                ? new Object[] {1, value, seq, system, false}
                : new Object[] {1, value, seq, false};
    }

    /**
     * A bitemporal version that lasted 10,000 events (the same row again and again) and then
     * closes: the close records its believed row's system start on the entry where it ends, the new
     * one, so it reads no block, as in SCD2.
     */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void closingALongBitemporalVersionReadsNoBlock(Backend backend) throws Exception {
        try (OperatorRun run = OperatorRun.start(spec(TargetType.BITEMPORAL), backend)) {
            for (int i = 0; i < HISTORY; i++) {
                run.process(run.input(event(TargetType.BITEMPORAL, 1, "same", i)));
            }
            StateAccessCounter counter = run.function().stateAccesses();
            counter.reset();
            run.process(run.input(event(TargetType.BITEMPORAL, 1, "other", HISTORY)));
            System.out.println(
                    "closing a bitemporal version of "
                            + HISTORY
                            + " entries on "
                            + backend
                            + ": "
                            + counter);
            assertThat(counter.iteratorSteps()).as("blocks read").isZero();
            assertThat(counter.valueReads()).as("value reads").isEqualTo(1);
            // and a correction inside it, at a later system time, reads only the blocks back to
            // where it lands
            counter.reset();
            run.process(run.input(new Object[] {1, "fix", HISTORY - 3, HISTORY + 1, false}));
            assertThat(counter.iteratorSteps())
                    .as("blocks read by a correction 3 entries back")
                    .isLessThanOrEqualTo(1);
        }
    }
}
