package dev.autocdc.operators.flink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.OperatorRun.Backend;
import dev.autocdc.operators.flink.OperatorRun.Change;
import dev.autocdc.operators.flink.runtime.DeadLetter;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.spec.OutputMode;
import dev.autocdc.operators.reference.ReferenceModel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.writer.BinaryRowWriter;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The keyed operator in a test harness, on RocksDB and on the heap backend: the reference
 * walkthrough, snapshot and restore in the middle of random streams, dead letters, tombstone
 * retention, and upsert mode.
 */
class AutoCdcFunctionTest {

    static RowType usersInput() {
        return RowType.of(
                new LogicalType[] {
                    new IntType(),
                    VarCharType.STRING_TYPE,
                    VarCharType.STRING_TYPE,
                    new IntType(false),
                    new BooleanType()
                },
                new String[] {"userId", "name", "city", "__seq", "__delete"});
    }

    static EngineSpec users(TargetType type, OutputMode mode) {
        return EngineSpec.builder("users", type, usersInput())
                .keys("userId")
                .outputMode(mode)
                .build();
    }

    /** semantics §12 users feed, in the reference's arrival order. */
    static List<RowData> usersFeed(OperatorRun run) {
        return List.of(
                run.input(124, "Raul", "Oaxaca", 1, false),
                run.input(123, "Isabel", "Monterrey", 1, false),
                run.input(125, "Mercedes", "Tijuana", 2, false),
                run.input(126, "Lily", "Cancun", 2, false),
                run.input(123, null, null, 6, true),
                run.input(125, "Mercedes", "Guadalajara", 6, false),
                run.input(125, "Mercedes", "Mexicali", 5, false),
                run.input(123, "Isabel", "Chihuahua", 5, false));
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void usersWalkthroughAsScd2(Backend backend) throws Exception {
        EngineSpec spec = users(TargetType.SCD2, OutputMode.RETRACT);
        try (OperatorRun run = OperatorRun.start(spec, backend)) {
            run.processAll(usersFeed(run));
            ChangelogTable table = new ChangelogTable(spec.targetPrimaryKey(), OutputMode.RETRACT);
            table.apply(run.newOutput());
            assertThat(table.rows())
                    .containsExactlyInAnyOrder(
                            Arrays.asList(123, "Isabel", "Monterrey", 1, 5),
                            Arrays.asList(123, "Isabel", "Chihuahua", 5, 6),
                            Arrays.asList(124, "Raul", "Oaxaca", 1, null),
                            Arrays.asList(125, "Mercedes", "Tijuana", 2, 5),
                            Arrays.asList(125, "Mercedes", "Mexicali", 5, 6),
                            Arrays.asList(125, "Mercedes", "Guadalajara", 6, null),
                            Arrays.asList(126, "Lily", "Cancun", 2, null));
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void usersWalkthroughAsScd1InUpsertMode(Backend backend) throws Exception {
        EngineSpec spec = users(TargetType.SCD1, OutputMode.UPSERT);
        try (OperatorRun run = OperatorRun.start(spec, backend)) {
            run.processAll(usersFeed(run));
            List<Change> out = run.newOutput();
            assertThat(out).extracting(Change::kind).doesNotContain(RowKind.UPDATE_BEFORE);
            ChangelogTable table = new ChangelogTable(spec.targetPrimaryKey(), OutputMode.UPSERT);
            table.apply(out);
            assertThat(table.rows())
                    .containsExactlyInAnyOrder(
                            Arrays.asList(124, "Raul", "Oaxaca"),
                            Arrays.asList(125, "Mercedes", "Guadalajara"),
                            Arrays.asList(126, "Lily", "Cancun"));
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void invalidEventsGoToDeadLettersWithAReason(Backend backend) throws Exception {
        RowType input =
                RowType.of(
                        new LogicalType[] {
                            new IntType(),
                            VarCharType.STRING_TYPE,
                            new IntType(),
                            new ArrayType(VarCharType.STRING_TYPE)
                        },
                        new String[] {"id", "v", "__seq", "__columns_to_update"});
        EngineSpec spec = EngineSpec.builder("f", TargetType.SCD2, input).keys("id").build();
        try (OperatorRun run = OperatorRun.start(spec, backend)) {
            run.process(run.input(null, "a", 1, null));
            run.process(run.input(1, "a", null, null));
            run.process(run.input(1, "a", 2, List.of("v", "nope")));
            run.process(run.input(1, "a", 3, List.of("v")));
            assertThat(run.deadLetters())
                    .extracting(d -> d.reason)
                    .containsExactly(
                            DeadLetter.NULL_KEY,
                            DeadLetter.NULL_SEQUENCE,
                            DeadLetter.BAD_COLUMNS_TO_UPDATE);
            assertThat(run.deadLetters().get(2).payload).contains("\"id\": 1").contains("nope");
            assertThat(run.deadLetters()).allSatisfy(d -> assertThat(d.flow).isEqualTo("f"));
            assertThat(run.newOutput()).hasSize(1);
        }
    }

    /**
     * A sequence column typed NOT NULL that holds null anyway (a binary row with its null bit set,
     * which a reader of the type would take for 0) is a null sequence: a dead letter, not applied.
     */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void aNullInANotNullSequenceColumnIsANullSequence(Backend backend) throws Exception {
        RowType input =
                RowType.of(
                        new LogicalType[] {
                            new IntType(), VarCharType.STRING_TYPE, new BigIntType(false)
                        },
                        new String[] {"id", "v", "__seq"});
        EngineSpec spec = EngineSpec.builder("f", TargetType.SCD2, input).keys("id").build();
        try (OperatorRun run = OperatorRun.start(spec, backend)) {
            BinaryRowData row = new BinaryRowData(3);
            BinaryRowWriter writer = new BinaryRowWriter(row);
            writer.writeInt(0, 1);
            writer.writeString(1, StringData.fromString("a"));
            writer.setNullAt(2);
            writer.complete();
            run.process(row);
            assertThat(run.deadLetters())
                    .extracting(d -> d.reason)
                    .containsExactly(DeadLetter.NULL_SEQUENCE);
            assertThat(run.newOutput()).isEmpty();
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void deletedKeyIsForgottenAfterTheTombstoneRetention(Backend backend) throws Exception {
        for (TargetType type : List.of(TargetType.SCD1, TargetType.SCD2)) {
            EngineSpec spec =
                    EngineSpec.builder("users", type, usersInput())
                            .keys("userId")
                            .tombstoneRetention(Duration.ofMillis(1000))
                            .build();
            try (OperatorRun run = OperatorRun.start(spec, backend)) {
                run.setProcessingTime(0);
                run.process(run.input(1, "a", "x", 1, false));
                run.process(run.input(1, null, null, 5, true));
                run.process(run.input(1, "b", "y", 3, false)); // older than the delete
                ChangelogTable table =
                        new ChangelogTable(spec.targetPrimaryKey(), OutputMode.RETRACT);
                table.apply(run.newOutput());
                if (type == TargetType.SCD1) {
                    assertThat(table.rows()).as("the tombstone stops a resurrection").isEmpty();
                } else {
                    assertThat(table.rows())
                            .as("type 2 places it in the history")
                            .containsExactlyInAnyOrder(
                                    Arrays.asList(1, "a", "x", 1, 3),
                                    Arrays.asList(1, "b", "y", 3, 5));
                }
                assertThat(run.keysWithState()).isGreaterThan(0);
                run.setProcessingTime(999);
                assertThat(run.keysWithState()).as(type + " before expiry").isGreaterThan(0);
                run.setProcessingTime(1000);
                assertThat(run.keysWithState())
                        .as(type + " after expiry: nothing but the floor of type 2")
                        .isEqualTo(type == TargetType.SCD1 ? 0 : 1);
                run.process(run.input(1, "c", "z", 2, false)); // older than the forgotten delete
                List<Change> out = run.newOutput();
                if (type == TargetType.SCD1) {
                    // SCD1 forgets the key entirely: the older event is applied as if new
                    // (semantics §7)
                    assertThat(out).extracting(Change::kind).containsExactly(RowKind.INSERT);
                    assertThat(out.get(0).values()[1]).isEqualTo("c");
                } else {
                    // type 2 keeps where its dropped history ends: the sink holds rows up to there
                    assertThat(out).isEmpty();
                    assertThat(run.lateEvents())
                            .extracting(d -> d.reason)
                            .containsExactly(DeadLetter.BEFORE_RETAINED_HISTORY);
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aKeyThatComesBackKeepsNoTombstoneTimer(Backend backend) throws Exception {
        EngineSpec spec =
                EngineSpec.builder("users", TargetType.SCD1, usersInput())
                        .keys("userId")
                        .tombstoneRetention(Duration.ofMillis(1000))
                        .build();
        try (OperatorRun run = OperatorRun.start(spec, backend)) {
            run.setProcessingTime(0);
            run.process(run.input(1, "a", "x", 1, false));
            run.process(run.input(1, null, null, 2, true));
            run.process(run.input(1, "b", "y", 3, false));
            run.setProcessingTime(5000);
            run.process(
                    run.input(1, "old", "old", 2, false)); // still known: older than the last event
            ChangelogTable table = new ChangelogTable(spec.targetPrimaryKey(), OutputMode.RETRACT);
            table.apply(run.newOutput());
            assertThat(table.rows()).containsExactly(Arrays.asList(1, "b", "y"));
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void historyRetentionDropsOldVersionsAndRoutesEventsThatWouldChangeThem(Backend backend)
            throws Exception {
        EngineSpec spec =
                EngineSpec.builder("users", TargetType.SCD2, usersInput())
                        .keys("userId")
                        .historyRetention(Duration.ofMillis(1000))
                        .build();
        try (OperatorRun run = OperatorRun.start(spec, backend)) {
            ChangelogTable table = new ChangelogTable(spec.targetPrimaryKey(), OutputMode.RETRACT);
            run.setProcessingTime(0);
            for (int seq = 1; seq <= 4; seq++) {
                run.process(run.input(1, "n", "city" + seq, seq, false));
            }
            run.setProcessingTime(500);
            run.process(run.input(1, "n", "city5", 5, false));
            table.apply(run.newOutput());
            assertThat(run.timelineEntries(1)).isEqualTo(5);
            run.setProcessingTime(
                    1000); // versions closed at time 0 ([1,2) .. [3,4)) are dropped; [4,5) closed
            // at 500 stays
            assertThat(run.timelineEntries(1)).as("entries 1, 2, 3 dropped").isEqualTo(2);
            run.process(run.input(1, "n", "late", 2, false)); // would change dropped history
            run.process(run.input(1, "n", "tie", 4, false)); // at the oldest sequence still held
            assertThat(run.lateEvents())
                    .extracting(d -> d.reason)
                    .containsExactly(
                            DeadLetter.BEFORE_RETAINED_HISTORY, DeadLetter.BEFORE_RETAINED_HISTORY);
            assertThat(run.newOutput()).isEmpty();
            run.process(run.input(1, "n", "mid", 5, false)); // a tie after the floor: applied
            run.process(run.input(1, "n", "city6", 6, false));
            table.apply(run.newOutput());
            assertThat(table.rows())
                    .as("the sink keeps the whole history")
                    .containsExactlyInAnyOrder(
                            Arrays.asList(1, "n", "city1", 1, 2),
                                    Arrays.asList(1, "n", "city2", 2, 3),
                            Arrays.asList(1, "n", "city3", 3, 4),
                                    Arrays.asList(1, "n", "city4", 4, 5),
                            Arrays.asList(1, "n", "mid", 5, 6),
                                    Arrays.asList(1, "n", "city6", 6, null));
        }
    }

    /**
     * Tombstone expiry for history targets: the history is in the sink, so older events go to the
     * late events.
     */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void anExpiredHistoryKeyRefusesOlderEventsAndAcceptsNewerOnes(Backend backend)
            throws Exception {
        for (TargetType type : List.of(TargetType.SCD2, TargetType.BITEMPORAL)) {
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
            EngineSpec spec =
                    EngineSpec.builder(
                                    "f",
                                    type,
                                    RowType.of(
                                            types.toArray(new LogicalType[0]),
                                            names.toArray(new String[0])))
                            .keys("id")
                            .tombstoneRetention(Duration.ofMillis(100))
                            .build();
            Function<Object[], Object[]> ev =
                    type == TargetType.BITEMPORAL
                            ? a -> new Object[] {a[0], a[1], a[2], (Integer) a[2] * 10, a[3]}
                            : a -> a;
            try (OperatorRun run = OperatorRun.start(spec, backend)) {
                ChangelogTable table =
                        new ChangelogTable(spec.targetPrimaryKey(), OutputMode.RETRACT);
                run.setProcessingTime(0);
                run.process(run.input(ev.apply(new Object[] {1, "x", 1, false})));
                run.process(run.input(ev.apply(new Object[] {1, null, 5, true})));
                run.setProcessingTime(100); // forgotten
                assertThat(run.keysWithState()).as(type + ": only the floor is left").isEqualTo(1);
                run.process(
                        run.input(
                                ev.apply(
                                        new Object[] {
                                            1, "x", 1, false
                                        }))); // redelivered: older than the history
                assertThat(run.lateEvents())
                        .extracting(d -> d.reason)
                        .containsExactly(DeadLetter.BEFORE_RETAINED_HISTORY);
                run.process(
                        run.input(
                                ev.apply(new Object[] {1, "y", 7, false}))); // newer: a new history
                // type 2: the recent entries and the floor; bitemporal: the recent entries, which
                // hold the floors now
                assertThat(run.keysWithState())
                        .as(type + " after the key returned")
                        .isEqualTo(type == TargetType.SCD2 ? 2 : 1);
                table.apply(run.newOutput()); // well formed: no +I for a primary key the sink holds
                assertThat(table.rows())
                        .as(type.toString())
                        .anyMatch(r -> r.get(1).equals("y") && r.get(2).equals(7));
            }
        }
    }

    /**
     * Equal tombstone and history retentions share timer timestamps; pruning must go on after the
     * key returns.
     */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void historyPruningSurvivesTimersSharingATimestamp(Backend backend) throws Exception {
        EngineSpec spec =
                EngineSpec.builder("users", TargetType.SCD2, usersInput())
                        .keys("userId")
                        .tombstoneRetention(Duration.ofMillis(10))
                        .historyRetention(Duration.ofMillis(10))
                        .build();
        try (OperatorRun run = OperatorRun.start(spec, backend)) {
            run.setProcessingTime(0);
            run.process(run.input(1, "n", "a", 1, false));
            run.setProcessingTime(10);
            run.setProcessingTime(20);
            run.process(
                    run.input(1, null, null, 2, true)); // tombstone and pruning timers both at 30
            run.setProcessingTime(25);
            run.process(run.input(1, "n", "b", 3, false));
            for (int seq = 4; seq < 50; seq++) {
                run.setProcessingTime(25 + seq);
                run.process(run.input(1, "n", "c" + seq, seq, false));
            }
            run.setProcessingTime(1000);
            assertThat(run.timelineEntries(1)).as("old versions left state").isLessThanOrEqualTo(2);
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void negativeZeroEqualsZeroAndDeadLetterPayloadsAreJson(Backend backend) throws Exception {
        RowType input =
                RowType.of(
                        new LogicalType[] {
                            new IntType(),
                            new DoubleType(),
                            new VarBinaryType(10),
                            VarCharType.STRING_TYPE,
                            new IntType()
                        },
                        new String[] {"id", "d", "b", "s", "__seq"});
        EngineSpec spec = EngineSpec.builder("f", TargetType.SCD1, input).keys("id").build();
        try (OperatorRun run = OperatorRun.start(spec, backend)) {
            run.process(run.input(1, 0.0d, new byte[] {1, 2}, "x", 1));
            run.process(run.input(1, -0.0d, new byte[] {1, 2}, "x", 2));
            assertThat(run.newOutput()).as("-0.0 is not distinct from 0.0").hasSize(1);
            run.process(run.input(null, 1.5d, new byte[] {(byte) 0xFF}, "say \"hi\"\n", 3));
            assertThat(run.deadLetters().get(0).payload)
                    .isEqualTo(
                            "{\"id\": null, \"d\": 1.5, \"b\": \"/w==\", \"s\": \"say \\\"hi\\\"\\n"
                                    + "\", \"__seq\": 3}");
        }
    }

    /**
     * Random streams over small domains: a run that snapshots and restores in the middle of the
     * stream (into a fresh operator) ends with the same table as an uninterrupted run, and both
     * equal the reference model.
     */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void snapshotAndRestoreMidStreamGivesTheUninterruptedResult(Backend backend) throws Exception {
        Random random = new Random(backend.ordinal() * 1000L + 7);
        for (TargetType type : TargetType.values()) {
            for (int round = 0; round < 12; round++) {
                boolean ignoreNull = round % 2 == 1;
                boolean trackV1 = type != TargetType.SCD1 && round % 3 == 2;
                EngineSpec spec = randomSpec(type, ignoreNull, trackV1);
                List<ReferenceModel.Event> events = randomEvents(random, type);
                List<Object[]> rows = new ArrayList<>();
                for (ReferenceModel.Event e : events) {
                    rows.add(inputValues(type, e));
                }
                Set<List<Object>> expected = reference(type, events, ignoreNull, trackV1);
                String context =
                        type + " ignoreNull=" + ignoreNull + " trackV1=" + trackV1 + " " + events;

                ChangelogTable straight =
                        new ChangelogTable(spec.targetPrimaryKey(), OutputMode.RETRACT);
                try (OperatorRun run = OperatorRun.start(spec, backend)) {
                    for (Object[] r : rows) {
                        run.process(run.input(r));
                    }
                    straight.apply(run.newOutput());
                }
                assertThat(straight.rows()).as(context).isEqualTo(expected);

                int cut = random.nextInt(rows.size() + 1);
                assertThat(OperatorRun.runRestoredAt(spec, false, spec, backend, rows, cut))
                        .as(context + " cut at " + cut)
                        .isEqualTo(straight.rows());
            }
        }
    }

    /** Input id, v1, v2, __seq, [__sys,] __delete; key id. */
    static EngineSpec randomSpec(TargetType type, boolean ignoreNull, boolean trackV1) {
        return randomSpec(type, ignoreNull, trackV1, EngineSpec.DEFAULT_BLOCK_SIZE);
    }

    static EngineSpec randomSpec(
            TargetType type, boolean ignoreNull, boolean trackV1, int blockSize) {
        List<LogicalType> types =
                new ArrayList<>(
                        List.of(
                                new IntType(),
                                VarCharType.STRING_TYPE,
                                VarCharType.STRING_TYPE,
                                new IntType(false)));
        List<String> names = new ArrayList<>(List.of("id", "v1", "v2", "__seq"));
        if (type == TargetType.BITEMPORAL) {
            types.add(new IntType(false));
            names.add("__sys");
        }
        types.add(new BooleanType());
        names.add("__delete");
        EngineSpec.Builder b =
                EngineSpec.builder(
                                "random",
                                type,
                                RowType.of(
                                        types.toArray(new LogicalType[0]),
                                        names.toArray(new String[0])))
                        .keys("id")
                        .blockSize(blockSize);
        if (ignoreNull) {
            b.ignoreNullUpdates();
        }
        if (trackV1) {
            b.trackHistoryOn(List.of("v1"));
        }
        return b.build();
    }

    /** An event as an input row of {@link #randomSpec}. */
    static Object[] inputValues(TargetType type, ReferenceModel.Event e) {
        List<Object> v =
                new ArrayList<>(
                        Arrays.asList(e.key(), e.values().get(0), e.values().get(1), e.seq()));
        if (type == TargetType.BITEMPORAL) {
            v.add(e.sys());
        }
        v.add(e.kind() == ReferenceModel.Kind.DELETE);
        return v.toArray();
    }

    private static List<ReferenceModel.Event> randomEvents(Random random, TargetType type) {
        String[] domain = {"a", "b", null};
        List<ReferenceModel.Event> events = new ArrayList<>();
        int n = 3 + random.nextInt(12);
        for (int i = 0; i < n; i++) {
            List<Object> values =
                    Arrays.asList(domain[random.nextInt(3)], domain[random.nextInt(3)]);
            events.add(
                    new ReferenceModel.Event(
                            1 + random.nextInt(3),
                            1 + random.nextInt(6),
                            type == TargetType.BITEMPORAL ? 1 + random.nextInt(6) : null,
                            random.nextInt(5) == 0
                                    ? ReferenceModel.Kind.DELETE
                                    : ReferenceModel.Kind.UPSERT,
                            values,
                            null));
        }
        Collections.shuffle(events, random);
        return events;
    }

    private static Set<List<Object>> reference(
            TargetType type,
            List<ReferenceModel.Event> events,
            boolean ignoreNull,
            boolean trackV1) {
        ReferenceModel.Options options =
                new ReferenceModel.Options(
                        List.of("v1", "v2"),
                        ignoreNull ? Set.of("v1", "v2") : Set.of(),
                        false,
                        trackV1 ? Set.of("v1") : null,
                        null,
                        null);
        Set<List<Object>> rows =
                type == TargetType.SCD1
                        ? ReferenceModel.scd1(events, options)
                        : type == TargetType.SCD2
                                ? ReferenceModel.scd2(events, options)
                                : ReferenceModel.bitemporal(events, options);
        return rows.stream().map(ArrayList::new).collect(Collectors.toSet());
    }
}
