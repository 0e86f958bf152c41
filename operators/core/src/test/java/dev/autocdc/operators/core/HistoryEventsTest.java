package dev.autocdc.operators.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.autocdc.operators.core.EngineVersusReferenceTest.Partial;
import dev.autocdc.operators.core.EngineVersusReferenceTest.Setup;
import dev.autocdc.operators.reference.ReferenceModel;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link HistoryEvents} against the reference model: for random events E1 over every option
 * combination, the events of E1's reference table fold (in the core engines) to exactly that table,
 * and with events E2 after every sequence of E1 (bitemporal: after every system sequence too) they
 * fold to the reference over E1 + E2, in shuffled orders. Histories that no flow makes are refused,
 * naming the row.
 */
class HistoryEventsTest {
    private static final int SETS_PER_TYPE = 1500;

    /** Sequences (and system sequences) of E1 are 1..6 (EngineVersusReferenceTest's domain). */
    private static final int CUTOVER = 6;

    private static final Map<String, Integer> COVERAGE = new TreeMap<>();

    @ParameterizedTest
    @EnumSource(TargetType.class)
    void theEventsOfATableFoldToItAndGoOnAsTheWholePast(TargetType type) throws Exception {
        Random random = new Random(7 + type.ordinal());
        for (int set = 0; set < SETS_PER_TYPE; set++) {
            Partial partial = Partial.values()[set % Partial.values().length];
            boolean keepSequence = (set / 5) % 2 == 1;
            boolean track = type != TargetType.SCD1 && (set / 10) % 2 == 1;
            boolean keepSystem = type == TargetType.BITEMPORAL && (set / 20) % 2 == 1;
            Setup setup = new Setup(type, partial, keepSequence, keepSystem, track);
            if (HistoryEvents.unsupported(setup.flow) != null) {
                bump("unsupported", 1);
                continue;
            }
            List<ReferenceModel.Event> past = withoutTruncates(randomEvents(random, setup, 0));
            Set<List<Object>> table = setup.reference(past);
            String context = "set " + set + " " + setup + " E1 " + past + " table " + table;

            List<ChangeEvent> replay = new ArrayList<>();
            for (List<HistoryEvents.Row> rows : rowsByKey(setup, table).values()) {
                try {
                    replay.addAll(HistoryEvents.checked(setup.flow, rows));
                } catch (InvalidHistoryException e) {
                    throw new AssertionError(context + ": " + e.getMessage(), e);
                }
            }
            bump(type + ".events", replay.size());
            bump(type + ".rows", table.size());
            CoreDriver driver = new CoreDriver(setup.flow);
            MaterializedTable folded = new MaterializedTable(driver.primaryKey());
            for (ChangeEvent e : replay) {
                folded.applyAll(driver.apply(e));
            }
            assertThat(folded.rows()).as(context + " replay " + replay).isEqualTo(table);

            List<ReferenceModel.Event> later =
                    withoutTruncates(randomEvents(random, setup, CUTOVER));
            Collections.shuffle(later, random);
            for (ReferenceModel.Event e : later) {
                folded.applyAll(driver.apply(setup.toChangeEvent(e)));
            }
            List<ReferenceModel.Event> all = new ArrayList<>(past);
            all.addAll(later);
            assertThat(folded.rows())
                    .as(context + " then " + later)
                    .isEqualTo(setup.reference(all));
        }
    }

    @AfterAll
    static void coverage() {
        System.out.println("history coverage: " + COVERAGE);
        for (TargetType t : TargetType.values()) {
            assertThat(COVERAGE.getOrDefault(t + ".rows", 0)).isGreaterThan(SETS_PER_TYPE);
        }
    }

    @Test
    void theUsersWalkthroughIsAnUpsertAtEachStartAndADeleteWhereARowEndsAlone() throws Exception {
        Setup setup = new Setup(TargetType.SCD2, Partial.FULL_ROW, false, false, false);
        List<HistoryEvents.Row> key123 =
                List.of(
                        new HistoryEvents.Row(
                                new Object[] {123, "Isabel", "Chihuahua"}, 5, 6, null, null),
                        new HistoryEvents.Row(
                                new Object[] {123, "Isabel", "Monterrey"}, 1, 5, null, null));
        List<ChangeEvent> events = HistoryEvents.of(setup.flow, key123);
        assertThat(events)
                .extracting(ChangeEvent::op)
                .containsExactly(Op.UPSERT, Op.UPSERT, Op.DELETE);
        assertThat(events)
                .extracting(e -> setup.flow.sequenceCodec().decode(e.sequence()))
                .containsExactly(1, 5, 6);
        assertThat(events.get(0).row()).containsExactly(123, "Isabel", "Monterrey");
        assertThat(events.get(2).row()).containsExactly(123, null, null);
    }

    @Test
    void aHistoryNoFlowMakesIsRefusedNamingTheRow() {
        Setup scd2 = new Setup(TargetType.SCD2, Partial.FULL_ROW, false, false, false);
        assertThatThrownBy(
                        () ->
                                HistoryEvents.of(
                                        scd2.flow,
                                        List.of(row(1, "a", 1, null), row(1, "b", 3, null))))
                .isInstanceOf(InvalidHistoryException.class)
                .hasMessage(
                        "not a valid history at row [1, b, null] [3, open): it starts after the"
                                + " open row [1, a, null] [1, open)");
        assertThatThrownBy(
                        () ->
                                HistoryEvents.of(
                                        scd2.flow,
                                        List.of(row(1, "a", 1, 4), row(1, "b", 3, null))))
                .hasMessageEndingWith(
                        "row [1, b, null] [3, open): it overlaps [1, a, null] [1, 4)");
        assertThatThrownBy(
                        () ->
                                HistoryEvents.of(
                                        scd2.flow,
                                        List.of(row(1, "a", 1, 3), row(1, "a", 3, null))))
                .hasMessageEndingWith(
                        "it starts where [1, a, null] [1, 3) ends with the same tracked columns:"
                                + " SCD type 2 keeps them as one row");
        assertThatThrownBy(() -> HistoryEvents.of(scd2.flow, List.of(row(1, "a", 3, 3))))
                .hasMessageEndingWith("row [1, a, null] [3, 3): it ends at or before it starts");
        assertThatThrownBy(() -> HistoryEvents.of(scd2.flow, List.of(row(1, "a", null, 3))))
                .hasMessageEndingWith("its start (__START_AT) is null or incomplete");
        Setup scd1 = new Setup(TargetType.SCD1, Partial.FULL_ROW, false, false, false);
        assertThatThrownBy(
                        () ->
                                HistoryEvents.of(
                                        scd1.flow,
                                        List.of(row(1, "a", 1, null), row(1, "b", 2, null))))
                .hasMessageEndingWith("row [1, b, null] [2, open): a second row of the key [1]");
        Setup bitemporal = new Setup(TargetType.BITEMPORAL, Partial.FULL_ROW, false, false, false);
        // two rows believed together at system time 15 that overlap in business time
        assertThatThrownBy(
                        () ->
                                HistoryEvents.of(
                                        bitemporal.flow,
                                        List.of(
                                                new HistoryEvents.Row(
                                                        new Object[] {1, "a", null},
                                                        1,
                                                        null,
                                                        10,
                                                        20),
                                                new HistoryEvents.Row(
                                                        new Object[] {1, "b", null},
                                                        2,
                                                        null,
                                                        15,
                                                        null))))
                .hasMessageEndingWith(
                        "row [1, b, null] [2, open) system [15, open): it starts after the open row"
                                + " [1, a, null] [1, open) system [10, 20) (in the same belief)");
    }

    /**
     * Rows that the checks of each belief pass but no events make: a row's untracked column changes
     * between two system intervals of one business row (semantics §5 shows one row with the latest
     * value), which only the fold finds.
     */
    @Test
    void theFoldRefusesWhatNoEventsMake() throws Exception {
        Setup tracked = new Setup(TargetType.BITEMPORAL, Partial.FULL_ROW, false, false, true);
        List<HistoryEvents.Row> rows =
                List.of(
                        new HistoryEvents.Row(new Object[] {1, "s", "a"}, 1, null, 5, 7),
                        new HistoryEvents.Row(new Object[] {1, "s", "b"}, 1, null, 7, null));
        assertThat(HistoryEvents.of(tracked.flow, rows)).hasSize(2);
        assertThatThrownBy(() -> HistoryEvents.checked(tracked.flow, rows))
                .isInstanceOf(InvalidHistoryException.class)
                .hasMessage(
                        "not a valid history at row [1, s, a] [1, open) system [5, 7): the flow"
                                + " makes other rows of this key's events: [1, s, b, 1, null, 5,"
                                + " null]");
    }

    private static HistoryEvents.Row row(int key, String v1, Integer start, Integer end) {
        return new HistoryEvents.Row(new Object[] {key, v1, null}, start, end, null, null);
    }

    /** Reference rows by key, as stored rows: base columns first, then the periods. */
    private static Map<Object, List<HistoryEvents.Row>> rowsByKey(
            Setup setup, Set<List<Object>> table) {
        int base = 1 + setup.valueColumns.size();
        Map<Object, List<HistoryEvents.Row>> byKey = new LinkedHashMap<>();
        for (List<Object> r : table) {
            Object[] row = r.subList(0, base).toArray();
            HistoryEvents.Row stored;
            switch (setup.type) {
                case SCD1:
                    // the row's sequence: the kept sequence column, else the cutover (--as-of)
                    Object at = setup.keepSequence ? row[setup.flow.indexOf("seq")] : CUTOVER;
                    stored = new HistoryEvents.Row(row, at, null, null, null);
                    break;
                case SCD2:
                    stored = new HistoryEvents.Row(row, r.get(base), r.get(base + 1), null, null);
                    break;
                default:
                    stored =
                            new HistoryEvents.Row(
                                    row,
                                    r.get(base),
                                    r.get(base + 1),
                                    r.get(base + 2),
                                    r.get(base + 3));
            }
            byKey.computeIfAbsent(r.get(0), k -> new ArrayList<>()).add(stored);
        }
        return byKey;
    }

    /** EngineVersusReferenceTest's random events, sequences shifted by {@code shift}. */
    private static List<ReferenceModel.Event> randomEvents(Random random, Setup setup, int shift) {
        List<ReferenceModel.Event> out = new ArrayList<>();
        for (ReferenceModel.Event e : EngineVersusReferenceTest.randomEvents(random, setup)) {
            List<Object> values = new ArrayList<>(e.values());
            if (setup.keepSequence) {
                values.set(2, e.seq() + shift);
            }
            if (setup.keepSystemSequence) {
                values.set(values.size() - 1, e.sys() + shift);
            }
            out.add(
                    new ReferenceModel.Event(
                            e.key(),
                            e.seq() + shift,
                            e.sys() == null ? null : e.sys() + shift,
                            e.kind(),
                            values,
                            e.columnsToUpdate()));
        }
        return out;
    }

    private static List<ReferenceModel.Event> withoutTruncates(List<ReferenceModel.Event> events) {
        List<ReferenceModel.Event> out = new ArrayList<>();
        for (ReferenceModel.Event e : events) {
            if (e.kind() != ReferenceModel.Kind.TRUNCATE) {
                out.add(e);
            }
        }
        return out;
    }

    private static synchronized void bump(String counter, int by) {
        COVERAGE.merge(counter, by, Integer::sum);
    }
}
