package dev.autocdc.operators.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.OperatorRun.Backend;
import dev.autocdc.operators.flink.OperatorRun.Change;
import dev.autocdc.operators.flink.spec.ControlColumn;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.spec.FlowShape;
import dev.autocdc.operators.flink.spec.OutputMode;
import dev.autocdc.operators.reference.ReferenceModel;
import dev.autocdc.operators.reference.ReferenceModel.Event;
import dev.autocdc.operators.reference.ReferenceModel.Kind;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A flow whose definition changed since its savepoint: a nullable column added after the last one
 * restores (stored rows read it as null, the next event of a key fills it), on both backends and
 * for every target type, equal to the reference model over the events with the column null before
 * the change; every other change of what the state means is refused at restore with the change
 * named ({@link FlowShape}).
 */
class SchemaChangeTest {
    private static final LogicalType INT = new IntType();
    private static final LogicalType STRING = VarCharType.STRING_TYPE;

    /** A flow {@code f} over data columns {@code names} of {@code types}, then its controls. */
    private static EngineSpec spec(
            TargetType type,
            List<String> names,
            List<LogicalType> types,
            LogicalType sequence,
            String... keys) {
        return spec(type, names, types, sequence, b -> {}, keys);
    }

    /** As above, with more of the flow's clauses set by {@code clauses}. */
    private static EngineSpec spec(
            TargetType type,
            List<String> names,
            List<LogicalType> types,
            LogicalType sequence,
            Consumer<EngineSpec.Builder> clauses,
            String... keys) {
        List<String> n = new ArrayList<>(names);
        List<LogicalType> t = new ArrayList<>(types);
        n.add(ControlColumn.SEQUENCE.columnName());
        t.add(sequence);
        if (type == TargetType.BITEMPORAL) {
            n.add(ControlColumn.SYSTEM_SEQUENCE.columnName());
            t.add(INT);
        }
        n.add(ControlColumn.DELETE.columnName());
        t.add(new BooleanType());
        RowType input = RowType.of(t.toArray(new LogicalType[0]), n.toArray(new String[0]));
        EngineSpec.Builder b = EngineSpec.builder("f", type, input).keys(keys);
        clauses.accept(b);
        return b.build();
    }

    private static EngineSpec base(TargetType type) {
        return spec(type, List.of("id", "v"), List.of(INT, STRING), INT, "id");
    }

    /** Three events of the base flow, then a savepoint. */
    private static OperatorSubtaskState baseSavepoint(TargetType type, Backend backend)
            throws Exception {
        try (OperatorRun run = OperatorRun.start(base(type), backend)) {
            boolean bt = type == TargetType.BITEMPORAL;
            run.process(bt ? run.input(1, "a", 1, 1, false) : run.input(1, "a", 1, false));
            run.process(bt ? run.input(1, "b", 3, 2, false) : run.input(1, "b", 3, false));
            run.process(bt ? run.input(2, "c", 2, 3, false) : run.input(2, "c", 2, false));
            return run.snapshot();
        }
    }

    private static void assertRefused(
            TargetType type, Backend backend, EngineSpec changed, String change) throws Exception {
        OperatorSubtaskState state = baseSavepoint(type, backend);
        assertThatThrownBy(() -> OperatorRun.restore(changed, backend, state).close())
                .hasStackTraceContaining("Flow f cannot restore its state: " + change)
                .hasStackTraceContaining("give it another name");
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void anotherTargetTypeIsRefused(Backend backend) throws Exception {
        assertRefused(
                TargetType.SCD2,
                backend,
                base(TargetType.SCD1),
                "the target type (STORED AS) changed from SCD2 to SCD1");
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void otherKeysAreRefused(Backend backend) throws Exception {
        assertRefused(
                TargetType.SCD2,
                backend,
                spec(TargetType.SCD2, List.of("id", "v"), List.of(INT, INT), INT, "v"),
                "the KEYS changed from id to v");
    }

    /**
     * Keys of other types change the key serializer, which Flink checks before the flow's state is
     * opened: its own message, naming the two serializers.
     */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void keysOfOtherTypesAreRefusedByFlink(Backend backend) throws Exception {
        OperatorSubtaskState state = baseSavepoint(TargetType.SCD2, backend);
        EngineSpec changed =
                spec(TargetType.SCD2, List.of("id", "v"), List.of(INT, STRING), INT, "id", "v");
        assertThatThrownBy(() -> OperatorRun.restore(changed, backend, state).close())
                .hasStackTraceContaining("must be compatible with the previous key serializer");
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void anotherSequenceTypeIsRefused(Backend backend) throws Exception {
        assertRefused(
                TargetType.BITEMPORAL,
                backend,
                spec(
                        TargetType.BITEMPORAL,
                        List.of("id", "v"),
                        List.of(INT, STRING),
                        new BigIntType(),
                        "id"),
                "the SEQUENCE BY type changed from INT to BIGINT");
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aColumnOfAnotherTypeIsRefused(Backend backend) throws Exception {
        assertRefused(
                TargetType.SCD1,
                backend,
                spec(TargetType.SCD1, List.of("id", "v"), List.of(INT, INT), INT, "id"),
                "column v changed from STRING to INT");
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aDroppedColumnIsRefused(Backend backend) throws Exception {
        assertRefused(
                TargetType.SCD2,
                backend,
                spec(TargetType.SCD2, List.of("id", "w"), List.of(INT, STRING), INT, "id"),
                "column v was dropped");
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aColumnAddedBeforeTheLastIsRefused(Backend backend) throws Exception {
        assertRefused(
                TargetType.SCD2,
                backend,
                spec(
                        TargetType.SCD2,
                        List.of("id", "w", "v"),
                        List.of(INT, STRING, STRING),
                        INT,
                        "id"),
                "column v moved from position 2 to 3");
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void anAddedNotNullColumnIsRefused(Backend backend) throws Exception {
        assertRefused(
                TargetType.SCD1,
                backend,
                spec(
                        TargetType.SCD1,
                        List.of("id", "v", "w"),
                        List.of(INT, STRING, new VarCharType(false, VarCharType.MAX_LENGTH)),
                        INT,
                        "id"),
                "column w was added as NOT NULL");
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void anotherTrackHistoryIsRefused(Backend backend) throws Exception {
        assertRefused(
                TargetType.SCD2,
                backend,
                spec(
                        TargetType.SCD2,
                        List.of("id", "v"),
                        List.of(INT, STRING),
                        INT,
                        b -> b.trackHistoryExcept(List.of("v")),
                        "id"),
                "TRACK HISTORY changed: column v was tracked and is not");
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void anotherIgnoreNullUpdatesIsRefused(Backend backend) throws Exception {
        assertRefused(
                TargetType.BITEMPORAL,
                backend,
                spec(
                        TargetType.BITEMPORAL,
                        List.of("id", "v"),
                        List.of(INT, STRING),
                        INT,
                        EngineSpec.Builder::ignoreNullUpdates,
                        "id"),
                "IGNORE NULL UPDATES changed: column v was not skipped when null and is");
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void anAddedColumnsToUpdateIsRefused(Backend backend) throws Exception {
        assertRefused(
                TargetType.SCD1,
                backend,
                spec(
                        TargetType.SCD1,
                        List.of("id", "v", ControlColumn.COLUMNS_TO_UPDATE.columnName()),
                        List.of(INT, STRING, STRING),
                        INT,
                        EngineSpec.Builder::columnsToUpdate,
                        "id"),
                "COLUMNS TO UPDATE was added");
    }

    /**
     * TRACK HISTORY ON (v) after column w was added: the new column is untracked, v is as it was.
     */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void anAddedColumnMayBeLeftOutOfTheHistory(Backend backend) throws Exception {
        OperatorSubtaskState state = baseSavepoint(TargetType.SCD2, backend);
        EngineSpec wide =
                spec(
                        TargetType.SCD2,
                        List.of("id", "v", "w"),
                        List.of(INT, STRING, STRING),
                        INT,
                        b -> b.trackHistoryOn(List.of("v")),
                        "id");
        try (OperatorRun run = OperatorRun.restore(wide, backend, state)) {
            run.process(run.input(1, "b", "x", 4, false));
            // w changed alone: the open version [3, -) takes it in place, no version opens
            assertThat(run.newOutput().stream().map(Change::toString))
                    .containsExactly("-U[1, b, null, 3, null]", "+U[1, b, x, 3, null]");
        }
    }

    /** A dropped column is named as dropped, not as a change of the clause that listed it. */
    @Test
    void aDroppedColumnIsNamedAsDroppedWhateverItsClauses() {
        EngineSpec stored =
                spec(
                        TargetType.SCD1,
                        List.of("id", "v", "w"),
                        List.of(INT, STRING, STRING),
                        INT,
                        EngineSpec.Builder::ignoreNullUpdates,
                        "id");
        EngineSpec now =
                spec(
                        TargetType.SCD1,
                        List.of("id", "v"),
                        List.of(INT, STRING),
                        INT,
                        EngineSpec.Builder::ignoreNullUpdates,
                        "id");
        assertThat(FlowShape.compare("f", FlowShape.of(stored), FlowShape.of(now)).refusal())
                .contains("column w was dropped");
    }

    /** A shape stored by a build before the clause lines restores whatever the clauses say now. */
    @Test
    void aShapeWithoutTheClauseLinesAcceptsAnyClauses() {
        String stored = "target SCD2\nkeys id\nsequence INT\ncolumn id\tINT\ncolumn v\tSTRING";
        EngineSpec now =
                spec(
                        TargetType.SCD2,
                        List.of("id", "v"),
                        List.of(INT, STRING),
                        INT,
                        b -> b.trackHistoryExcept(List.of("v")).ignoreNullUpdates(),
                        "id");
        assertThat(FlowShape.of(now))
                .contains("untracked v", "ignore null v", "columns to update no");
        assertThat(FlowShape.compare("f", stored, FlowShape.of(now)).refused()).isFalse();
    }

    /**
     * Random events over 12 keys, cut at a random point; the flow gains column {@code w} at the
     * cut. The events before it have {@code w} null, as the stored rows read it.
     */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void anAddedNullableColumnRestoresAndEqualsTheReference(Backend backend) throws Exception {
        int checked = 0;
        for (TargetType type : TargetType.values()) {
            for (int seed = 0; seed < 8; seed++) {
                checkAddedColumn(type, backend, new Random(seed * 31L + type.ordinal()));
                checked++;
            }
        }
        assertThat(checked).isEqualTo(24);
    }

    private static void checkAddedColumn(TargetType type, Backend backend, Random random)
            throws Exception {
        boolean bt = type == TargetType.BITEMPORAL;
        EngineSpec narrow = base(type);
        EngineSpec wide =
                spec(type, List.of("id", "v", "w"), List.of(INT, STRING, STRING), INT, "id");
        List<Event> events = new ArrayList<>();
        for (int key = 0; key < 12; key++) {
            int n = 1 + random.nextInt(6);
            List<Integer> seqs = draw(random, n);
            List<Integer> syss = draw(random, n);
            for (int i = 0; i < n; i++) {
                boolean delete = random.nextInt(8) == 0;
                String v = "v" + random.nextInt(3);
                String w = random.nextBoolean() ? "w" + random.nextInt(3) : null;
                events.add(
                        new Event(
                                key,
                                seqs.get(i),
                                bt ? syss.get(i) : null,
                                delete ? Kind.DELETE : Kind.UPSERT,
                                Arrays.asList(v, w),
                                null));
            }
        }
        Collections.shuffle(events, random);
        int cut = random.nextInt(events.size() + 1);
        List<Event> expectedEvents = new ArrayList<>();
        OperatorSubtaskState state;
        ChangelogTable before = new ChangelogTable(narrow.targetPrimaryKey(), OutputMode.RETRACT);
        try (OperatorRun run = OperatorRun.start(narrow, backend)) {
            // a run that restored nothing reads its state as it is (each widened read is a
            // serialization round trip)
            assertThat(run.function().widensState()).isFalse();
            for (Event e : events.subList(0, cut)) {
                Object v = e.values().get(0);
                boolean delete = e.kind() == Kind.DELETE;
                run.process(
                        bt
                                ? run.input(e.key(), v, e.seq(), e.sys(), delete)
                                : run.input(e.key(), v, e.seq(), delete));
                expectedEvents.add(
                        new Event(
                                e.key(), e.seq(), e.sys(), e.kind(), Arrays.asList(v, null), null));
            }
            before.apply(run.newOutput());
            state = run.snapshot();
        }
        // the target as the narrow flow left it, read with the added column null
        ChangelogTable table = new ChangelogTable(wide.targetPrimaryKey(), OutputMode.RETRACT);
        for (List<Object> row : before.rows()) {
            List<Object> widened = new ArrayList<>(row);
            widened.add(2, null);
            table.apply(new Change(RowKind.INSERT, widened.toArray()));
        }
        try (OperatorRun run = OperatorRun.restore(wide, backend, state)) {
            assertThat(run.function().widensState()).isTrue();
            for (Event e : events.subList(cut, events.size())) {
                Object v = e.values().get(0);
                Object w = e.values().get(1);
                boolean delete = e.kind() == Kind.DELETE;
                run.process(
                        bt
                                ? run.input(e.key(), v, w, e.seq(), e.sys(), delete)
                                : run.input(e.key(), v, w, e.seq(), delete));
                expectedEvents.add(e);
            }
            table.apply(run.newOutput());
        }
        ReferenceModel.Options options =
                new ReferenceModel.Options(List.of("v", "w"), Set.of(), false, null, null, null);
        Set<List<Object>> expected =
                switch (type) {
                    case SCD1 -> ReferenceModel.scd1(expectedEvents, options);
                    case SCD2 -> ReferenceModel.scd2(expectedEvents, options);
                    default -> ReferenceModel.bitemporal(expectedEvents, options);
                };
        assertThat(table.rows())
                .as("%s on %s, cut at %d of %d events", type, backend, cut, events.size())
                .isEqualTo(expected);
    }

    private static List<Integer> draw(Random random, int n) {
        List<Integer> all = new ArrayList<>();
        for (int s = 1; s <= n * 3; s++) {
            all.add(s);
        }
        Collections.shuffle(all, random);
        return new ArrayList<>(all.subList(0, n));
    }
}
