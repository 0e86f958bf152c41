package dev.autocdc.operators.reference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.autocdc.operators.reference.ReferenceModel.Event;
import dev.autocdc.operators.reference.ReferenceModel.Kind;
import dev.autocdc.operators.reference.ReferenceModel.Options;
import dev.autocdc.operators.reference.SnapshotReference.Result;
import dev.autocdc.operators.reference.SnapshotReference.SnapshotRow;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The snapshot reference model (semantics §10) against hand-typed tables: §13 H as written in the
 * contract, and small cases worked out by hand from §10's definition.
 *
 * <p>Encodings: dates are yyyymmdd (20250101); H's system times are all at 00:00:00, so they are
 * yyyymmdd too. Rows: SCD1 [key, values...]; SCD2 [key, values..., __START_AT, __END_AT];
 * bitemporal [..., __START_AT, __END_AT, __SYSTEM_START_AT, __SYSTEM_END_AT].
 *
 * <p>Not tested: a later snapshot that is empty. Without end rows (APPLY AS SNAPSHOT END WHEN) a
 * snapshot with no rows does not exist in the input, so the model cannot represent it.
 */
class SnapshotReferenceTest {

    private static final Options EMPLOYEES = plain("name", "role");
    private static final Options V = plain("v");

    // ---------------------------------------------------------------------------------------------
    // semantics §13 H: the employees walkthrough as four bitemporal snapshots
    // ---------------------------------------------------------------------------------------------

    private static List<SnapshotRow> h() {
        return List.of(
                // S1 2025-01-01 / 2025-01-02
                s(1, 20250101, 20250102, "Chris", "Owner"),
                s(2, 20250101, 20250102, "Dana", "Engineer"),
                // S2 2025-03-01 / 2025-03-01
                s(1, 20250301, 20250301, "Chris", "Manager"),
                s(2, 20250301, 20250301, "Dana", "Engineer"),
                // S3 2025-02-01 / 2025-03-15
                s(1, 20250201, 20250315, "Chris", "Team Lead"),
                s(2, 20250201, 20250315, "Dana", "Engineer"),
                // S4 2025-01-01 / 2025-04-01
                s(1, 20250101, 20250401, "Chris", "Owner"),
                s(2, 20250101, 20250401, "Dana", "Analyst"));
    }

    @Test
    void workedExampleHBitemporal() {
        Result result = SnapshotReference.bitemporal(h(), EMPLOYEES);
        assertThat(result.table())
                .containsExactlyInAnyOrder(
                        // Chris: the change-feed walkthrough's rows
                        r(1, "Chris", "Owner", 20250101, null, 20250102, 20250301),
                        r(1, "Chris", "Owner", 20250101, 20250301, 20250301, 20250315),
                        r(1, "Chris", "Manager", 20250301, null, 20250301, null),
                        r(1, "Chris", "Owner", 20250101, 20250201, 20250315, null),
                        r(1, "Chris", "Team Lead", 20250201, 20250301, 20250315, null),
                        // Dana
                        r(2, "Dana", "Engineer", 20250101, null, 20250102, 20250401),
                        r(2, "Dana", "Analyst", 20250101, 20250201, 20250401, null),
                        r(2, "Dana", "Engineer", 20250201, null, 20250401, null));
        assertThat(result.deadLetters()).isEmpty();
    }

    @Test
    void workedExampleHEventsAreOneUpsertPerRowAndNoDelete() {
        // Both keys are in every snapshot: eight upserts, no delete.
        assertThat(SnapshotReference.events(h(), EMPLOYEES, true))
                .containsExactlyInAnyOrder(
                        up(1, 20250101, 20250102, "Chris", "Owner"),
                        up(2, 20250101, 20250102, "Dana", "Engineer"),
                        up(1, 20250301, 20250301, "Chris", "Manager"),
                        up(2, 20250301, 20250301, "Dana", "Engineer"),
                        up(1, 20250201, 20250315, "Chris", "Team Lead"),
                        up(2, 20250201, 20250315, "Dana", "Engineer"),
                        up(1, 20250101, 20250401, "Chris", "Owner"),
                        up(2, 20250101, 20250401, "Dana", "Analyst"));
    }

    @Test
    void workedExampleHInAnyRowOrder() {
        List<SnapshotRow> rows = new ArrayList<>(h());
        Result expected = SnapshotReference.bitemporal(h(), EMPLOYEES);
        for (int seed = 0; seed < 20; seed++) {
            Collections.shuffle(rows, new Random(seed));
            assertThat(SnapshotReference.bitemporal(rows, EMPLOYEES)).isEqualTo(expected);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // A key that vanishes and comes back
    // ---------------------------------------------------------------------------------------------

    private static List<SnapshotRow> vanishing() {
        return List.of(
                s(1, 1, null, "a"),
                s(2, 1, null, "p"),
                s(2, 2, null, "p"), // 1 vanishes at 2
                s(1, 3, null, "a"), // 1 comes back at 3
                s(2, 3, null, "p"),
                s(1, 4, null, "b")); // 2 vanishes at 4
    }

    @Test
    void vanishingKeyEvents() {
        assertThat(SnapshotReference.events(vanishing(), V, false))
                .containsExactly(
                        up(1, 1, null, "a"),
                        up(2, 1, null, "p"),
                        del(1, 2, null),
                        up(2, 2, null, "p"),
                        up(1, 3, null, "a"),
                        up(2, 3, null, "p"),
                        up(1, 4, null, "b"),
                        del(2, 4, null));
    }

    @Test
    void vanishingKeyType2ClosedAtFirstVersionLackingItAndReopened() {
        Result result = SnapshotReference.scd2(vanishing(), V);
        assertThat(result.table())
                .containsExactlyInAnyOrder(
                        r(1, "a", 1, 2), r(1, "a", 3, 4), r(1, "b", 4, null), r(2, "p", 1, 4));
        assertThat(result.deadLetters()).isEmpty();
    }

    @Test
    void vanishingKeyType1() {
        assertThat(SnapshotReference.scd1(vanishing(), V).table())
                .containsExactlyInAnyOrder(r(1, "b"));
        // Up to version 3: both keys present.
        List<SnapshotRow> upTo3 = vanishing().stream().filter(x -> x.version() <= 3).toList();
        assertThat(SnapshotReference.scd1(upTo3, V).table())
                .containsExactlyInAnyOrder(r(1, "a"), r(2, "p"));
        // Up to version 2: key 1 is deleted.
        List<SnapshotRow> upTo2 = vanishing().stream().filter(x -> x.version() <= 2).toList();
        assertThat(SnapshotReference.scd1(upTo2, V).table()).containsExactlyInAnyOrder(r(2, "p"));
    }

    @Test
    void vanishingKeyInAnyRowOrder() {
        List<SnapshotRow> rows = new ArrayList<>(vanishing());
        for (int seed = 0; seed < 20; seed++) {
            Collections.shuffle(rows, new Random(seed));
            assertThat(SnapshotReference.scd2(rows, V).table())
                    .containsExactlyInAnyOrder(
                            r(1, "a", 1, 2), r(1, "a", 3, 4), r(1, "b", 4, null), r(2, "p", 1, 4));
            assertThat(SnapshotReference.scd1(rows, V).table())
                    .containsExactlyInAnyOrder(r(1, "b"));
        }
    }

    // ---------------------------------------------------------------------------------------------
    // A column that did not change opens no version
    // ---------------------------------------------------------------------------------------------

    @Test
    void unchangedRowOpensNoVersion() {
        Options o = plain("name", "city");
        List<SnapshotRow> rows =
                List.of(
                        s(1, 1, null, "Ann", "Paris"),
                        s(1, 2, null, "Ann", "Paris"),
                        s(1, 3, null, "Ann", "Rome"),
                        s(1, 4, null, "Ann", "Rome"));
        assertThat(SnapshotReference.scd2(rows, o).table())
                .containsExactlyInAnyOrder(
                        r(1, "Ann", "Paris", 1, 3), r(1, "Ann", "Rome", 3, null));
    }

    @Test
    void untrackedColumnChangeOpensNoVersion() {
        Options o =
                new Options(List.of("name", "city"), Set.of(), false, Set.of("city"), null, null);
        List<SnapshotRow> rows =
                List.of(
                        s(1, 1, null, "Ann", "Paris"),
                        s(1, 2, null, "Anna", "Paris"),
                        s(1, 3, null, "Anna", "Rome"));
        // The untracked name shows its value as of the last sequence inside the row (§4).
        assertThat(SnapshotReference.scd2(rows, o).table())
                .containsExactlyInAnyOrder(
                        r(1, "Anna", "Paris", 1, 3), r(1, "Anna", "Rome", 3, null));
    }

    @Test
    void keptVersionColumnOpensNoVersion() {
        // §10: a kept version column rewrites the row at every snapshot, but is never tracked (§4).
        Options o = new Options(List.of("name", "day"), Set.of(), false, null, "day", null);
        List<SnapshotRow> rows =
                List.of(s(1, 1, null, "Ann", 1), s(1, 2, null, "Ann", 2), s(1, 3, null, "Ann", 3));
        assertThat(SnapshotReference.scd2(rows, o).table())
                .containsExactlyInAnyOrder(r(1, "Ann", 3, 1, null));
        assertThat(SnapshotReference.scd1(rows, o).table())
                .containsExactlyInAnyOrder(r(1, "Ann", 3));
    }

    // ---------------------------------------------------------------------------------------------
    // Bitemporal: snapshots restating older versions
    // ---------------------------------------------------------------------------------------------

    @Test
    void bitemporalRestatedOlderVersion() {
        List<SnapshotRow> rows =
                List.of(
                        s(1, 10, 1, "a"), // S1 10/1
                        s(1, 30, 2, "a"), // S2 30/2
                        s(1, 20, 3, "a"), // S3 20/3: restates nothing for 1, adds 2 at 20
                        s(2, 20, 3, "x"),
                        s(1, 20, 4, "b"), // S4 20/4: restates version 20 with 1 = b
                        s(2, 20, 4, "x"));
        Result result = SnapshotReference.bitemporal(rows, V);
        assertThat(result.table())
                .containsExactlyInAnyOrder(
                        r(1, "a", 10, null, 1, 4),
                        r(1, "a", 10, 20, 4, null),
                        r(1, "b", 20, 30, 4, null),
                        r(1, "a", 30, null, 4, null),
                        // 2 first seen at an older version than S2, which lacks it: closed at 30
                        r(2, "x", 20, 30, 3, null));
        assertThat(result.deadLetters()).isEmpty();
    }

    @Test
    void bitemporalSnapshotsSharingASystemSequenceAreAppliedTogether() {
        List<SnapshotRow> rows =
                List.of(
                        s(1, 10, 1, "a"), // S1 10/1
                        s(2, 10, 5, "x"), // S2 10/5: 1 deleted at 10
                        s(1, 20, 5, "b")); // S3 20/5: 2 deleted at 20
        assertThat(SnapshotReference.bitemporal(rows, V).table())
                .containsExactlyInAnyOrder(
                        r(1, "a", 10, null, 1, 5),
                        r(1, "b", 20, null, 5, null),
                        r(2, "x", 10, 20, 5, null));
    }

    // ---------------------------------------------------------------------------------------------
    // Duplicates in one snapshot
    // ---------------------------------------------------------------------------------------------

    @Test
    void equalDuplicateRowsAreOneRow() {
        List<SnapshotRow> rows =
                List.of(
                        s(1, 1, null, "a"),
                        s(1, 1, null, "a"),
                        s(2, 1, null, "p"),
                        s(1, 2, null, "a"),
                        s(2, 2, null, "q"),
                        s(2, 2, null, "q"));
        Result result = SnapshotReference.scd2(rows, V);
        assertThat(result.table())
                .containsExactlyInAnyOrder(r(1, "a", 1, null), r(2, "p", 1, 2), r(2, "q", 2, null));
        assertThat(result.deadLetters()).isEmpty();
        assertThat(SnapshotReference.events(rows, V, false))
                .containsExactly(
                        up(1, 1, null, "a"),
                        up(2, 1, null, "p"),
                        up(1, 2, null, "a"),
                        up(2, 2, null, "q"));
        assertThat(SnapshotReference.scd1(rows, V).table())
                .containsExactlyInAnyOrder(r(1, "a"), r(2, "q"));
    }

    @Test
    void equalDuplicateRowsBitemporal() {
        List<SnapshotRow> rows = new ArrayList<>(h());
        rows.addAll(h());
        Result result = SnapshotReference.bitemporal(rows, EMPLOYEES);
        assertThat(result).isEqualTo(SnapshotReference.bitemporal(h(), EMPLOYEES));
        assertThat(result.deadLetters()).isEmpty();
    }

    private static List<SnapshotRow> conflicting() {
        return List.of(
                s(1, 1, null, "a"),
                s(2, 1, null, "p"),
                s(1, 2, null, "b"), // 1 has different rows at 2 ...
                s(1, 2, null, "c"),
                s(1, 2, null, "c"), // ... an equal copy among them is dead-lettered too
                s(2, 2, null, "q"),
                s(1, 3, null, "d"),
                s(2, 3, null, "q"));
    }

    @Test
    void differentDuplicateRowsAreDeadLetteredAndTheKeyIsLeftAsBefore() {
        Result result = SnapshotReference.scd2(conflicting(), V);
        // 1 stays a through version 2 (neither upserted nor deleted there).
        assertThat(result.table())
                .containsExactlyInAnyOrder(
                        r(1, "a", 1, 3), r(1, "d", 3, null), r(2, "p", 1, 2), r(2, "q", 2, null));
        assertThat(result.deadLetters())
                .containsExactly(s(1, 2, null, "b"), s(1, 2, null, "c"), s(1, 2, null, "c"));
        assertThat(SnapshotReference.events(conflicting(), V, false))
                .containsExactly(
                        up(1, 1, null, "a"),
                        up(2, 1, null, "p"),
                        up(2, 2, null, "q"),
                        up(1, 3, null, "d"),
                        up(2, 3, null, "q"));
    }

    @Test
    void differentDuplicateRowsInTheLastSnapshotType1() {
        List<SnapshotRow> rows =
                List.of(
                        s(1, 1, null, "a"),
                        s(2, 1, null, "p"),
                        s(1, 2, null, "b"),
                        s(1, 2, null, "c"));
        Result result = SnapshotReference.scd1(rows, V);
        // 2 vanished at 2 and is deleted; 1 is left as it was: a.
        assertThat(result.table()).containsExactlyInAnyOrder(r(1, "a"));
        assertThat(result.deadLetters()).containsExactly(s(1, 2, null, "b"), s(1, 2, null, "c"));
    }

    @Test
    void aKeySeenOnlyInDeadLettersHasNoRow() {
        List<SnapshotRow> rows =
                List.of(
                        s(1, 1, null, "a"),
                        s(1, 2, null, "a"),
                        s(3, 2, null, "x"),
                        s(3, 2, null, "y"));
        assertThat(SnapshotReference.scd1(rows, V).table()).containsExactlyInAnyOrder(r(1, "a"));
        assertThat(SnapshotReference.scd2(rows, V).table())
                .containsExactlyInAnyOrder(r(1, "a", 1, null));
        assertThat(SnapshotReference.events(rows, V, false))
                .containsExactly(up(1, 1, null, "a"), del(3, 1, null), up(1, 2, null, "a"));
    }

    @Test
    void differentDuplicateRowsBitemporal() {
        List<SnapshotRow> rows =
                List.of(
                        s(1, 10, 1, "a"), // S1 10/1
                        s(1, 20, 2, "b"), // S2 20/2: conflict, 1 left as it was
                        s(1, 20, 2, "c"),
                        s(1, 20, 3, "d")); // S3 20/3 restates 20
        Result result = SnapshotReference.bitemporal(rows, V);
        assertThat(result.table())
                .containsExactlyInAnyOrder(
                        r(1, "a", 10, null, 1, 3),
                        r(1, "a", 10, 20, 3, null),
                        r(1, "d", 20, null, 3, null));
        assertThat(result.deadLetters()).containsExactly(s(1, 20, 2, "b"), s(1, 20, 2, "c"));
    }

    @Test
    void deadLettersInAnyRowOrder() {
        List<SnapshotRow> rows = new ArrayList<>(conflicting());
        Result expected = SnapshotReference.scd2(conflicting(), V);
        for (int seed = 0; seed < 20; seed++) {
            Collections.shuffle(rows, new Random(seed));
            assertThat(SnapshotReference.scd2(rows, V)).isEqualTo(expected);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Refused options and inputs
    // ---------------------------------------------------------------------------------------------

    @Test
    void refusesClausesThatMakeNoSenseForSnapshots() {
        List<SnapshotRow> rows = List.of(s(1, 1, null, "a"));
        assertThatThrownBy(
                        () ->
                                SnapshotReference.scd1(
                                        rows,
                                        new Options(
                                                List.of("v"),
                                                Set.of("v"),
                                                false,
                                                null,
                                                null,
                                                null)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("IGNORE NULL UPDATES");
        assertThatThrownBy(
                        () ->
                                SnapshotReference.scd1(
                                        rows,
                                        new Options(
                                                List.of("v"), Set.of(), true, null, null, null)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("COLUMNS TO UPDATE");
        assertThatThrownBy(() -> SnapshotReference.scd2(List.of(s(1, 1, 1, "a")), V))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SnapshotReference.bitemporal(rows, V))
                .isInstanceOf(IllegalArgumentException.class);
    }

    // ---------------------------------------------------------------------------------------------
    // Helpers
    // ---------------------------------------------------------------------------------------------

    private static Options plain(String... columns) {
        return new Options(List.of(columns), Set.of(), false, null, null, null);
    }

    private static SnapshotRow s(Object key, int version, Integer sys, Object... values) {
        return new SnapshotRow(key, version, sys, Arrays.asList(values));
    }

    private static Event up(Object key, int seq, Integer sys, Object... values) {
        return new Event(key, seq, sys, Kind.UPSERT, Arrays.asList(values), null);
    }

    /** A delete for the single-column target V (values all null). */
    private static Event del(Object key, int seq, Integer sys) {
        return new Event(key, seq, sys, Kind.DELETE, Arrays.asList((Object) null), null);
    }

    private static List<Object> r(Object... cells) {
        return Arrays.asList(cells);
    }
}
