package dev.autocdc.operators.reference;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.operators.reference.ReferenceModel.Event;
import dev.autocdc.operators.reference.ReferenceModel.Kind;
import dev.autocdc.operators.reference.ReferenceModel.Options;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The reference model against the contract's conformance examples (§12) and worked examples (§13),
 * with the expected tables transcribed by hand from docs/semantics.md and reference/*.txt.
 *
 * <p>Encodings: dates are yyyymmdd (20250101); the employees' timestamps are MMddHHmm in 2025
 * (2025-01-02 09:00 = 1020900; yyyyMMddHHmm would overflow an int); company A's times are HHmmss on
 * 2025-07-18 (10:01:00 = 100100).
 */
class ReferenceModelTest {

    // ---------------------------------------------------------------------------------------------
    // semantics §12: users (reference/scd2-history.txt)
    // ---------------------------------------------------------------------------------------------

    private static final Options USERS = plain("name", "city");

    private static List<Event> usersFeed() {
        return List.of(
                up(124, 1, "Raul", "Oaxaca"),
                up(123, 1, "Isabel", "Monterrey"),
                up(125, 2, "Mercedes", "Tijuana"),
                up(126, 2, "Lily", "Cancun"),
                del(123, 6, null, null),
                up(125, 6, "Mercedes", "Guadalajara"),
                up(125, 5, "Mercedes", "Mexicali"),
                up(123, 5, "Isabel", "Chihuahua"));
    }

    @Test
    void usersType1() {
        assertThat(ReferenceModel.scd1(usersFeed(), USERS))
                .containsExactlyInAnyOrder(
                        r(124, "Raul", "Oaxaca"),
                        r(125, "Mercedes", "Guadalajara"),
                        r(126, "Lily", "Cancun"));
    }

    @Test
    void usersType2() {
        assertThat(ReferenceModel.scd2(usersFeed(), USERS))
                .containsExactlyInAnyOrder(
                        r(123, "Isabel", "Monterrey", 1, 5),
                        r(123, "Isabel", "Chihuahua", 5, 6),
                        r(124, "Raul", "Oaxaca", 1, null),
                        r(125, "Mercedes", "Tijuana", 2, 5),
                        r(125, "Mercedes", "Mexicali", 5, 6),
                        r(125, "Mercedes", "Guadalajara", 6, null),
                        r(126, "Lily", "Cancun", 2, null));
    }

    @Test
    void usersWithDuplicatesInAnyOrderGiveTheSameTables() {
        List<Event> noisy = new ArrayList<>(usersFeed());
        noisy.addAll(usersFeed());
        noisy.add(up(125, 5, "Mercedes", "Mexicali"));
        Collections.shuffle(noisy, new Random(7));
        assertThat(ReferenceModel.scd1(noisy, USERS))
                .isEqualTo(ReferenceModel.scd1(usersFeed(), USERS));
        assertThat(ReferenceModel.scd2(noisy, USERS))
                .isEqualTo(ReferenceModel.scd2(usersFeed(), USERS));
    }

    // ---------------------------------------------------------------------------------------------
    // semantics §12: employees (reference/bitemporal-auto-cdc.txt).
    // Target columns: employeeId, name, role, effectiveDate, recordedAt (the last two are the kept,
    // untracked sequence columns), __START_AT, __END_AT, __SYSTEM_START_AT, __SYSTEM_END_AT.
    // ---------------------------------------------------------------------------------------------

    private static final Options EMPLOYEES =
            new Options(
                    List.of("name", "role", "effectiveDate", "recordedAt"),
                    Set.of(),
                    false,
                    null,
                    "effectiveDate",
                    "recordedAt");

    private static final int D0101 = 20250101;
    private static final int D0201 = 20250201;
    private static final int D0301 = 20250301;
    private static final int D0630 = 20250630;
    private static final int T0102 = 1020900; // 2025-01-02 09:00
    private static final int T0301 = 3010900; // 2025-03-01 09:00
    private static final int T0315 = 3150900; // 2025-03-15 09:00
    private static final int T0401 = 4010900; // 2025-04-01 09:00
    private static final int T0630 = 6301700; // 2025-06-30 17:00

    private static Event employee(
            int id, String name, String role, int effectiveDate, int recordedAt) {
        return upB(id, effectiveDate, recordedAt, name, role, effectiveDate, recordedAt);
    }

    private static final List<Event> STEP2 =
            List.of(
                    employee(1, "Chris", "Owner", D0101, T0102),
                    employee(2, "Dana", "Engineer", D0101, T0102));
    private static final List<Event> STEP3 =
            concat(STEP2, employee(1, "Chris", "Manager", D0301, T0301));
    private static final List<Event> STEP4 =
            concat(STEP3, employee(1, "Chris", "Team Lead", D0201, T0315));
    private static final List<Event> STEP5 =
            concat(STEP4, employee(2, "Dana", "Analyst", D0101, T0401));
    private static final List<Event> DELETE =
            concat(STEP5, delB(1, D0630, T0630, null, null, D0630, T0630));

    @Test
    void employeesStep2() {
        assertThat(ReferenceModel.bitemporal(STEP2, EMPLOYEES))
                .containsExactlyInAnyOrder(
                        r(1, "Chris", "Owner", D0101, T0102, D0101, null, T0102, null),
                        r(2, "Dana", "Engineer", D0101, T0102, D0101, null, T0102, null));
    }

    @Test
    void employeesStep3InOrderUpdate() {
        assertThat(ReferenceModel.bitemporal(STEP3, EMPLOYEES))
                .containsExactlyInAnyOrder(
                        r(1, "Chris", "Owner", D0101, T0102, D0101, null, T0102, T0301),
                        r(1, "Chris", "Owner", D0101, T0102, D0101, D0301, T0301, null),
                        r(1, "Chris", "Manager", D0301, T0301, D0301, null, T0301, null),
                        r(2, "Dana", "Engineer", D0101, T0102, D0101, null, T0102, null));
    }

    @Test
    void employeesStep4OutOfOrderUpdate() {
        assertThat(ReferenceModel.bitemporal(STEP4, EMPLOYEES))
                .containsExactlyInAnyOrder(
                        r(1, "Chris", "Owner", D0101, T0102, D0101, null, T0102, T0301),
                        r(1, "Chris", "Owner", D0101, T0102, D0101, D0301, T0301, T0315),
                        r(1, "Chris", "Owner", D0101, T0102, D0101, D0201, T0315, null),
                        r(1, "Chris", "Team Lead", D0201, T0315, D0201, D0301, T0315, null),
                        r(1, "Chris", "Manager", D0301, T0301, D0301, null, T0301, null),
                        r(2, "Dana", "Engineer", D0101, T0102, D0101, null, T0102, null));
    }

    private static final List<List<Object>> CHRIS_AFTER_STEP4 =
            List.of(
                    r(1, "Chris", "Owner", D0101, T0102, D0101, null, T0102, T0301),
                    r(1, "Chris", "Owner", D0101, T0102, D0101, D0301, T0301, T0315),
                    r(1, "Chris", "Owner", D0101, T0102, D0101, D0201, T0315, null),
                    r(1, "Chris", "Team Lead", D0201, T0315, D0201, D0301, T0315, null),
                    r(1, "Chris", "Manager", D0301, T0301, D0301, null, T0301, null));

    private static final List<List<Object>> DANA_AFTER_STEP5 =
            List.of(
                    r(2, "Dana", "Engineer", D0101, T0102, D0101, null, T0102, T0401),
                    r(2, "Dana", "Analyst", D0101, T0401, D0101, null, T0401, null));

    @Test
    void employeesStep5Correction() {
        List<List<Object>> expected = new ArrayList<>(CHRIS_AFTER_STEP4);
        expected.addAll(DANA_AFTER_STEP5);
        assertThat(ReferenceModel.bitemporal(STEP5, EMPLOYEES))
                .containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void employeesQueriesAfterStep5() {
        Set<List<Object>> table = ReferenceModel.bitemporal(STEP5, EMPLOYEES);
        // Current state: __END_AT IS NULL AND __SYSTEM_END_AT IS NULL.
        assertThat(select(table, row -> row.get(6) == null && row.get(8) == null, 0, 1, 2))
                .containsExactlyInAnyOrder(r(1, "Chris", "Manager"), r(2, "Dana", "Analyst"));
        // Business-time history as currently believed: __SYSTEM_END_AT IS NULL.
        assertThat(select(table, row -> row.get(8) == null, 0, 1, 2, 5, 6))
                .containsExactlyInAnyOrder(
                        r(1, "Chris", "Owner", D0101, D0201),
                        r(1, "Chris", "Team Lead", D0201, D0301),
                        r(1, "Chris", "Manager", D0301, null),
                        r(2, "Dana", "Analyst", D0101, null));
        // Business time 2025-02-15 as believed at system time 2025-03-10 00:00, then as believed
        // today.
        assertThat(select(table, asOf(20250215, 3100000), 0, 1, 2))
                .containsExactlyInAnyOrder(r(1, "Chris", "Owner"), r(2, "Dana", "Engineer"));
        assertThat(select(table, asOf(20250215, 12312359), 0, 1, 2))
                .containsExactlyInAnyOrder(r(1, "Chris", "Team Lead"), r(2, "Dana", "Analyst"));
    }

    @Test
    void employeesDelete() {
        List<List<Object>> expected = new ArrayList<>(CHRIS_AFTER_STEP4);
        expected.remove(r(1, "Chris", "Manager", D0301, T0301, D0301, null, T0301, null));
        expected.add(r(1, "Chris", "Manager", D0301, T0301, D0301, null, T0301, T0630));
        expected.add(r(1, "Chris", "Manager", D0301, T0301, D0301, D0630, T0630, null));
        expected.addAll(DANA_AFTER_STEP5);
        assertThat(ReferenceModel.bitemporal(DELETE, EMPLOYEES))
                .containsExactlyInAnyOrderElementsOf(expected);
    }

    // ---------------------------------------------------------------------------------------------
    // semantics §12: company A (reference/advanced-auto-cdc.txt); columns CompanyId, Data Point, 4
    // time
    // columns
    // ---------------------------------------------------------------------------------------------

    private static final Options COMPANY = plain("dataPoint");
    private static final List<Event> CHANGE1 = List.of(upB("A", 100100, 100500, "XFv1"));
    private static final List<Event> CHANGE2 = concat(CHANGE1, upB("A", 121543, 122000, "XFv2"));
    private static final List<Event> CHANGE3 = concat(CHANGE2, upB("A", 120500, 122500, "XFv3"));
    private static final List<Event> CHANGE4 = concat(CHANGE3, delB("A", 123000, 123000, "XFv2"));

    @Test
    void companyAChange1Insert() {
        assertThat(ReferenceModel.bitemporal(CHANGE1, COMPANY))
                .containsExactlyInAnyOrder(r("A", "XFv1", 100100, null, 100500, null));
    }

    @Test
    void companyAChange2Update() {
        assertThat(ReferenceModel.bitemporal(CHANGE2, COMPANY))
                .containsExactlyInAnyOrder(
                        r("A", "XFv1", 100100, null, 100500, 122000),
                        r("A", "XFv1", 100100, 121543, 122000, null),
                        r("A", "XFv2", 121543, null, 122000, null));
    }

    @Test
    void companyAChange3OutOfOrderUpdate() {
        assertThat(ReferenceModel.bitemporal(CHANGE3, COMPANY))
                .containsExactlyInAnyOrder(
                        r("A", "XFv1", 100100, null, 100500, 122000),
                        r("A", "XFv1", 100100, 121543, 122000, 122500),
                        r("A", "XFv1", 100100, 120500, 122500, null),
                        r("A", "XFv3", 120500, 121543, 122500, null),
                        r("A", "XFv2", 121543, null, 122000, null));
    }

    @Test
    void companyAChange4Delete() {
        assertThat(ReferenceModel.bitemporal(CHANGE4, COMPANY))
                .containsExactlyInAnyOrder(
                        r("A", "XFv1", 100100, null, 100500, 122000),
                        r("A", "XFv1", 100100, 121543, 122000, 122500),
                        r("A", "XFv1", 100100, 120500, 122500, null),
                        r("A", "XFv3", 120500, 121543, 122500, null),
                        r("A", "XFv2", 121543, null, 122000, 123000),
                        r("A", "XFv2", 121543, 123000, 123000, null));
    }

    // ---------------------------------------------------------------------------------------------
    // semantics §13 worked examples
    // ---------------------------------------------------------------------------------------------

    private static final Options V = plain("v");

    @Test
    void a_type2LateEventMergesIntoItsNeighbour() {
        List<Event> first = List.of(up(1, 5, "x"));
        assertThat(ReferenceModel.scd2(first, V)).containsExactlyInAnyOrder(r(1, "x", 5, null));
        assertThat(ReferenceModel.scd2(concat(first, up(1, 2, "x")), V))
                .containsExactlyInAnyOrder(r(1, "x", 2, null));
    }

    @Test
    void b_type1DeleteTombstone() {
        List<Event> events = List.of(up(1, 1, "a"), del(1, 5, (Object) null), up(1, 3, "b"));
        assertThat(ReferenceModel.scd1(events, V)).isEmpty();
        assertThat(ReferenceModel.scd1(concat(events, up(1, 7, "c")), V))
                .containsExactlyInAnyOrder(r(1, "c"));
    }

    @Test
    void c_bitemporalCorrectionRestoresAnEarlierBelief() {
        List<Event> events = List.of(upB(1, 1, 10, "r1"), upB(1, 3, 20, "r3"), upB(1, 3, 40, "r1"));
        assertThat(ReferenceModel.bitemporal(events, V))
                .containsExactlyInAnyOrder(
                        r(1, "r1", 1, null, 10, 20),
                        r(1, "r1", 1, 3, 20, 40),
                        r(1, "r3", 3, null, 20, 40),
                        r(1, "r1", 1, null, 40, null));
    }

    @Test
    void d_bitemporalOutOfOrderInSystemTime() {
        List<Event> inOrder = List.of(upB(1, 1, 10, "A"), upB(1, 5, 30, "B"));
        assertThat(ReferenceModel.bitemporal(inOrder, V))
                .containsExactlyInAnyOrder(
                        r(1, "A", 1, null, 10, 30),
                        r(1, "A", 1, 5, 30, null),
                        r(1, "B", 5, null, 30, null));
        assertThat(ReferenceModel.bitemporal(concat(inOrder, upB(1, 3, 20, "C")), V))
                .containsExactlyInAnyOrder(
                        r(1, "A", 1, null, 10, 20),
                        r(1, "A", 1, 3, 20, null),
                        r(1, "C", 3, null, 20, 30),
                        r(1, "C", 3, 5, 30, null),
                        r(1, "B", 5, null, 30, null));
    }

    private static final Options ROLE_NOTE =
            new Options(List.of("role", "note"), Set.of(), false, Set.of("role"), null, null);

    @Test
    void e_bitemporalTrackHistoryLatestBusinessSequenceInsideTheRowWins() {
        List<Event> events = List.of(upB(1, 2, 5, "s", "a"), upB(1, 4, 6, "s", "b"));
        assertThat(ReferenceModel.bitemporal(events, ROLE_NOTE))
                .containsExactlyInAnyOrder(r(1, "s", "b", 2, null, 5, null));
        assertThat(ReferenceModel.bitemporal(concat(events, upB(1, 3, 7, "s", "c")), ROLE_NOTE))
                .containsExactlyInAnyOrder(r(1, "s", "b", 2, null, 5, null));
    }

    @Test
    void f_type2TrackHistoryLateEventSplitsARow() {
        List<Event> events = List.of(up(1, 2, "s", "a"), up(1, 4, "s", "b"));
        assertThat(ReferenceModel.scd2(events, ROLE_NOTE))
                .containsExactlyInAnyOrder(r(1, "s", "b", 2, null));
        assertThat(ReferenceModel.scd2(concat(events, up(1, 3, "t", "c")), ROLE_NOTE))
                .containsExactlyInAnyOrder(
                        r(1, "s", "a", 2, 3), r(1, "t", "c", 3, 4), r(1, "s", "b", 4, null));
    }

    @Test
    void g_bitemporalTwoEventsAtOneSystemTime() {
        List<Event> first = List.of(upB(1, 1, 10, "A"));
        assertThat(ReferenceModel.bitemporal(first, V))
                .containsExactlyInAnyOrder(r(1, "A", 1, null, 10, null));
        assertThat(ReferenceModel.bitemporal(concat(first, upB(1, 5, 10, "B")), V))
                .containsExactlyInAnyOrder(r(1, "A", 1, 5, 10, null), r(1, "B", 5, null, 10, null));
    }

    // ---------------------------------------------------------------------------------------------
    // Rules of §1, §2 and §6 that the examples above do not exercise (expected values derived by
    // hand)
    // ---------------------------------------------------------------------------------------------

    @Test
    void aDeleteWinsATieWithAnUpsert() {
        assertThat(ReferenceModel.scd1(List.of(up(1, 3, "a"), del(1, 3, "a")), V)).isEmpty();
        assertThat(ReferenceModel.scd2(List.of(up(1, 1, "a"), up(1, 3, "b"), del(1, 3, "b")), V))
                .containsExactlyInAnyOrder(r(1, "a", 1, 3));
    }

    @Test
    void tiedUpsertsApplyInUtf8ByteOrderSoTheGreatestWins() {
        // U+FF61 < U+1F600 in UTF-8 bytes (EF.. < F0..), although Java's UTF-16 compareTo says the
        // opposite.
        String halfwidth = "\uFF61";
        String emoji = "\uD83D\uDE00";
        assertThat(ReferenceModel.scd1(List.of(up(1, 2, emoji), up(1, 2, halfwidth)), V))
                .containsExactlyInAnyOrder(r(1, emoji));
        assertThat(ReferenceModel.scd1(List.of(up(1, 2, "b"), up(1, 2, "a")), V))
                .containsExactlyInAnyOrder(r(1, "b"));
        assertThat(ReferenceModel.scd1(List.of(up(1, 2, 10), up(1, 2, 9)), V))
                .containsExactlyInAnyOrder(r(1, 10));
        assertThat(ReferenceModel.scd1(List.of(up(1, 2, (Object) null), up(1, 2, 9)), V))
                .containsExactlyInAnyOrder(r(1, 9));
    }

    @Test
    void truncateDeletesEveryKeyAtItsSequenceIncludingLaterArrivals() {
        List<Event> events =
                List.of(
                        up(1, 1, "a"),
                        new Event(null, 5, null, Kind.TRUNCATE, Arrays.asList((Object) null), null),
                        up(2, 3, "b"), // before the truncate: gone
                        up(3, 7, "c"), // after it: kept
                        up(1, 6, "d")); // re-inserted after it
        assertThat(ReferenceModel.scd1(events, V)).containsExactlyInAnyOrder(r(1, "d"), r(3, "c"));
    }

    @Test
    void ignoreNullUpdatesLetsALateEventChangeColumnsNoLaterEventWrote() {
        Options o = new Options(List.of("a", "b"), Set.of("a", "b"), false, null, null, null);
        List<Event> events = List.of(up(1, 1, "x", "y"), up(1, 3, null, "z"));
        assertThat(ReferenceModel.scd1(events, o)).containsExactlyInAnyOrder(r(1, "x", "z"));
        assertThat(ReferenceModel.scd1(concat(events, up(1, 2, "w", null)), o))
                .containsExactlyInAnyOrder(r(1, "w", "z"));
        assertThat(ReferenceModel.scd2(concat(events, up(1, 2, "w", null)), o))
                .containsExactlyInAnyOrder(
                        r(1, "x", "y", 1, 2), r(1, "w", "y", 2, 3), r(1, "w", "z", 3, null));
    }

    @Test
    void columnsToUpdate() {
        Options o = new Options(List.of("a", "b", "seq"), Set.of(), true, null, "seq", null);
        List<Event> events =
                List.of(
                        upCtu(
                                1,
                                1,
                                Set.of("a"),
                                "x",
                                "unwritten",
                                1), // on absent: b is null; the sequence column is always written
                        upCtu(1, 2, Set.of("b"), "unwritten", "y", 2),
                        upCtu(
                                1,
                                3,
                                Set.of("b"),
                                "unwritten",
                                null,
                                3), // an explicit null is written
                        upCtu(
                                1,
                                4,
                                Set.of(),
                                "unwritten",
                                "unwritten",
                                4), // writes nothing but the sequence column
                        upCtu(1, 5, null, "p", "q", 5)); // null = every column
        assertThat(ReferenceModel.scd1(events.subList(0, 1), o))
                .containsExactlyInAnyOrder(r(1, "x", null, 1));
        assertThat(ReferenceModel.scd1(events.subList(0, 4), o))
                .containsExactlyInAnyOrder(r(1, "x", null, 4));
        assertThat(ReferenceModel.scd1(events, o)).containsExactlyInAnyOrder(r(1, "p", "q", 5));
        assertThat(ReferenceModel.scd2(events, o))
                .containsExactlyInAnyOrder(
                        r(1, "x", null, 1, 1, 2),
                        r(1, "x", "y", 2, 2, 3),
                        r(1, "x", null, 4, 3, 5),
                        r(1, "p", "q", 5, 5, null));
    }

    @Test
    void keptSequenceColumnsAreNeverTrackedEvenIfListed() {
        Options o =
                new Options(List.of("v", "seq"), Set.of(), false, Set.of("v", "seq"), "seq", null);
        assertThat(
                        ReferenceModel.scd2(
                                List.of(up(1, 1, "a", 1), up(1, 2, "a", 2), up(1, 3, "b", 3)), o))
                .containsExactlyInAnyOrder(r(1, "a", 2, 1, 3), r(1, "b", 3, 3, null));
    }

    // ---------------------------------------------------------------------------------------------
    // helpers
    // ---------------------------------------------------------------------------------------------

    private static Options plain(String... valueColumns) {
        return new Options(List.of(valueColumns), Set.of(), false, null, null, null);
    }

    private static Event up(Object key, int seq, Object... values) {
        return new Event(key, seq, null, Kind.UPSERT, Arrays.asList(values), null);
    }

    private static Event del(Object key, int seq, Object... values) {
        return new Event(key, seq, null, Kind.DELETE, Arrays.asList(values), null);
    }

    private static Event upB(Object key, int seq, int sys, Object... values) {
        return new Event(key, seq, sys, Kind.UPSERT, Arrays.asList(values), null);
    }

    private static Event delB(Object key, int seq, int sys, Object... values) {
        return new Event(key, seq, sys, Kind.DELETE, Arrays.asList(values), null);
    }

    private static Event upCtu(Object key, int seq, Set<String> columnsToUpdate, Object... values) {
        return new Event(key, seq, null, Kind.UPSERT, Arrays.asList(values), columnsToUpdate);
    }

    private static List<Object> r(Object... cells) {
        return Arrays.asList(cells);
    }

    private static List<Event> concat(List<Event> events, Event more) {
        List<Event> out = new ArrayList<>(events);
        out.add(more);
        return out;
    }

    /** §9 as-of filter on the employees table: business time b, system time s. */
    private static Predicate<List<Object>> asOf(int b, int s) {
        return row ->
                (Integer) row.get(5) <= b
                        && (row.get(6) == null || b < (Integer) row.get(6))
                        && (Integer) row.get(7) <= s
                        && (row.get(8) == null || s < (Integer) row.get(8));
    }

    private static Set<List<Object>> select(
            Set<List<Object>> table, Predicate<List<Object>> where, int... columns) {
        return table.stream()
                .filter(where)
                .map(row -> Arrays.stream(columns).mapToObj(row::get).collect(Collectors.toList()))
                .collect(Collectors.toSet());
    }
}
