package dev.autocdc.operators.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The conformance examples of semantics §12 and the worked examples of semantics §13. Every
 * expected table is a literal transcribed by hand from docs/semantics.md or from the reference
 * document it names ({@code /work/shared/reference/...}); none is computed by the engine or by a
 * model.
 *
 * <p>Target rows are the base columns in flow order, then {@code __START_AT}, {@code __END_AT}
 * (SCD2 and bitemporal), then {@code __SYSTEM_START_AT}, {@code __SYSTEM_END_AT} (bitemporal).
 * Where a reference prints only some columns, the materialized rows are projected onto the printed
 * columns.
 */
class GoldenExamplesTest {
    private static final ColumnType INT = ColumnType.of(ColumnType.Kind.INT);
    private static final ColumnType STRING = ColumnType.of(ColumnType.Kind.STRING);
    private static final ColumnType DATE = ColumnType.of(ColumnType.Kind.DATE);
    private static final ColumnType TIMESTAMP = ColumnType.of(ColumnType.Kind.TIMESTAMP);

    // ------------------------------------------------------------------------------------------------
    // semantics §12, users (reference/scd2-history.txt)
    // ------------------------------------------------------------------------------------------------

    /**
     * users_cdf(userId, name, city, operation, sequenceNum) with COLUMNS * EXCEPT (operation,
     * sequenceNum).
     */
    @Nested
    class Users {
        private Flow flow(TargetType type) {
            return Flow.builder("users", type)
                    .column("userId", INT)
                    .column("name", STRING)
                    .column("city", STRING)
                    .keys("userId")
                    .sequenceBy(INT)
                    .build();
        }

        /** The 8 events of semantics §12 in the listed arrival order. */
        private List<ChangeEvent> events(Flow f) {
            return List.of(
                    upsert(f, 1, 124, "Raul", "Oaxaca"),
                    upsert(f, 1, 123, "Isabel", "Monterrey"),
                    upsert(f, 2, 125, "Mercedes", "Tijuana"),
                    upsert(f, 2, 126, "Lily", "Cancun"),
                    delete(f, 6, 123, null, null),
                    upsert(f, 6, 125, "Mercedes", "Guadalajara"),
                    upsert(f, 5, 125, "Mercedes", "Mexicali"),
                    upsert(f, 5, 123, "Isabel", "Chihuahua"));
        }

        private final List<List<Object>> type1 =
                List.of(
                        row(124, "Raul", "Oaxaca"),
                        row(125, "Mercedes", "Guadalajara"),
                        row(126, "Lily", "Cancun"));

        private final List<List<Object>> type2 =
                List.of(
                        row(123, "Isabel", "Monterrey", 1, 5),
                        row(123, "Isabel", "Chihuahua", 5, 6),
                        row(124, "Raul", "Oaxaca", 1, null),
                        row(125, "Mercedes", "Tijuana", 2, 5),
                        row(125, "Mercedes", "Mexicali", 5, 6),
                        row(125, "Mercedes", "Guadalajara", 6, null),
                        row(126, "Lily", "Cancun", 2, null));

        @Test
        void type1InListedOrder() {
            Flow f = flow(TargetType.SCD1);
            assertThat(run(f, events(f)).rows()).containsExactlyInAnyOrderElementsOf(type1);
        }

        @Test
        void type1InReverseOrder() {
            Flow f = flow(TargetType.SCD1);
            assertThat(run(f, reversed(events(f))).rows())
                    .containsExactlyInAnyOrderElementsOf(type1);
        }

        @Test
        void type2InListedOrder() {
            Flow f = flow(TargetType.SCD2);
            assertThat(run(f, events(f)).rows()).containsExactlyInAnyOrderElementsOf(type2);
        }

        @Test
        void type2InReverseOrder() {
            Flow f = flow(TargetType.SCD2);
            assertThat(run(f, reversed(events(f))).rows())
                    .containsExactlyInAnyOrderElementsOf(type2);
        }

        /** reference step 4: the current slice (__END_AT IS NULL) of type 2 is the type 1 table. */
        @Test
        void currentSliceOfType2IsType1() {
            Flow f = flow(TargetType.SCD2);
            List<List<Object>> current =
                    run(f, events(f)).rows().stream()
                            .filter(r -> r.get(4) == null)
                            .map(r -> r.subList(0, 3))
                            .collect(Collectors.toList());
            assertThat(current).containsExactlyInAnyOrderElementsOf(type1);
        }

        /**
         * semantics §2: any arrival order gives the same table (seeded shuffles on top of listed
         * and reverse).
         */
        @Test
        void shuffledOrdersGiveTheSameTables() {
            Random random = new Random(12);
            for (TargetType type : List.of(TargetType.SCD1, TargetType.SCD2)) {
                Flow f = flow(type);
                for (int i = 0; i < 300; i++) {
                    List<ChangeEvent> arrival = new ArrayList<>(events(f));
                    Collections.shuffle(arrival, random);
                    assertThat(run(f, arrival).rows())
                            .as(type + " arrival " + arrival)
                            .containsExactlyInAnyOrderElementsOf(
                                    type == TargetType.SCD1 ? type1 : type2);
                }
            }
        }
    }

    // ------------------------------------------------------------------------------------------------
    // semantics §12, employees (reference/bitemporal-auto-cdc.txt)
    // ------------------------------------------------------------------------------------------------

    /**
     * employees_cdf(employeeId INT, name STRING, role STRING, operation STRING, effectiveDate DATE,
     * recordedAt TIMESTAMP), SEQUENCE BY effectiveDate, SYSTEM SEQUENCE BY recordedAt, COLUMNS *
     * EXCEPT (operation), STORED AS BITEMPORAL: effectiveDate and recordedAt are kept in the
     * target.
     */
    @Nested
    class Employees {
        /**
         * employeeId, name, role, __START_AT, __END_AT, __SYSTEM_START_AT, __SYSTEM_END_AT (what
         * the reference prints).
         */
        private final int[] printed = {0, 1, 2, 5, 6, 7, 8};

        private final Flow f =
                Flow.builder("employees", TargetType.BITEMPORAL)
                        .column("employeeId", INT)
                        .column("name", STRING)
                        .column("role", STRING)
                        .column("effectiveDate", DATE)
                        .column("recordedAt", TIMESTAMP)
                        .keys("employeeId")
                        .sequenceBy(DATE)
                        .systemSequenceBy(TIMESTAMP)
                        .sequenceColumns("effectiveDate", "recordedAt")
                        .build();

        private ChangeEvent emp(
                Op op,
                Integer id,
                String name,
                String role,
                String effectiveDate,
                String recordedAt) {
            LocalDate business = d(effectiveDate);
            LocalDateTime system = t(recordedAt);
            return new ChangeEvent(
                    op,
                    new Object[] {id, name, role, business, system},
                    f.sequenceCodec().encode(business),
                    f.systemSequenceCodec().encode(system),
                    null);
        }

        // Step 1: the initial load (both recorded at the same system time).
        private final ChangeEvent chrisOwner =
                emp(Op.UPSERT, 1, "Chris", "Owner", "2025-01-01", "2025-01-02 09:00:00");
        private final ChangeEvent danaEngineer =
                emp(Op.UPSERT, 2, "Dana", "Engineer", "2025-01-01", "2025-01-02 09:00:00");
        // Step 3: in-order update.
        private final ChangeEvent chrisManager =
                emp(Op.UPSERT, 1, "Chris", "Manager", "2025-03-01", "2025-03-01 09:00:00");
        // Step 4: out-of-order update.
        private final ChangeEvent chrisTeamLead =
                emp(Op.UPSERT, 1, "Chris", "Team Lead", "2025-02-01", "2025-03-15 09:00:00");
        // Step 5: correction.
        private final ChangeEvent danaAnalyst =
                emp(Op.UPSERT, 2, "Dana", "Analyst", "2025-01-01", "2025-04-01 09:00:00");
        // "Delete records".
        private final ChangeEvent chrisDelete =
                emp(Op.DELETE, 1, null, null, "2025-06-30", "2025-06-30 17:00:00");

        // Tables as printed (Dana's / Chris's rows that "don't change" carried over from the
        // previous step).
        private final List<List<Object>> afterStep2 =
                List.of(
                        row(
                                1,
                                "Chris",
                                "Owner",
                                d("2025-01-01"),
                                null,
                                t("2025-01-02 09:00:00"),
                                null),
                        row(
                                2,
                                "Dana",
                                "Engineer",
                                d("2025-01-01"),
                                null,
                                t("2025-01-02 09:00:00"),
                                null));

        private final List<List<Object>> afterStep3 =
                List.of(
                        row(
                                1,
                                "Chris",
                                "Owner",
                                d("2025-01-01"),
                                null,
                                t("2025-01-02 09:00:00"),
                                t("2025-03-01 09:00:00")),
                        row(
                                1,
                                "Chris",
                                "Owner",
                                d("2025-01-01"),
                                d("2025-03-01"),
                                t("2025-03-01 09:00:00"),
                                null),
                        row(
                                1,
                                "Chris",
                                "Manager",
                                d("2025-03-01"),
                                null,
                                t("2025-03-01 09:00:00"),
                                null),
                        row(
                                2,
                                "Dana",
                                "Engineer",
                                d("2025-01-01"),
                                null,
                                t("2025-01-02 09:00:00"),
                                null));

        private final List<List<Object>> afterStep4 =
                List.of(
                        row(
                                1,
                                "Chris",
                                "Owner",
                                d("2025-01-01"),
                                null,
                                t("2025-01-02 09:00:00"),
                                t("2025-03-01 09:00:00")),
                        row(
                                1,
                                "Chris",
                                "Owner",
                                d("2025-01-01"),
                                d("2025-03-01"),
                                t("2025-03-01 09:00:00"),
                                t("2025-03-15 09:00:00")),
                        row(
                                1,
                                "Chris",
                                "Owner",
                                d("2025-01-01"),
                                d("2025-02-01"),
                                t("2025-03-15 09:00:00"),
                                null),
                        row(
                                1,
                                "Chris",
                                "Team Lead",
                                d("2025-02-01"),
                                d("2025-03-01"),
                                t("2025-03-15 09:00:00"),
                                null),
                        row(
                                1,
                                "Chris",
                                "Manager",
                                d("2025-03-01"),
                                null,
                                t("2025-03-01 09:00:00"),
                                null),
                        row(
                                2,
                                "Dana",
                                "Engineer",
                                d("2025-01-01"),
                                null,
                                t("2025-01-02 09:00:00"),
                                null));

        private final List<List<Object>> afterStep5 =
                List.of(
                        row(
                                1,
                                "Chris",
                                "Owner",
                                d("2025-01-01"),
                                null,
                                t("2025-01-02 09:00:00"),
                                t("2025-03-01 09:00:00")),
                        row(
                                1,
                                "Chris",
                                "Owner",
                                d("2025-01-01"),
                                d("2025-03-01"),
                                t("2025-03-01 09:00:00"),
                                t("2025-03-15 09:00:00")),
                        row(
                                1,
                                "Chris",
                                "Owner",
                                d("2025-01-01"),
                                d("2025-02-01"),
                                t("2025-03-15 09:00:00"),
                                null),
                        row(
                                1,
                                "Chris",
                                "Team Lead",
                                d("2025-02-01"),
                                d("2025-03-01"),
                                t("2025-03-15 09:00:00"),
                                null),
                        row(
                                1,
                                "Chris",
                                "Manager",
                                d("2025-03-01"),
                                null,
                                t("2025-03-01 09:00:00"),
                                null),
                        row(
                                2,
                                "Dana",
                                "Engineer",
                                d("2025-01-01"),
                                null,
                                t("2025-01-02 09:00:00"),
                                t("2025-04-01 09:00:00")),
                        row(
                                2,
                                "Dana",
                                "Analyst",
                                d("2025-01-01"),
                                null,
                                t("2025-04-01 09:00:00"),
                                null));

        /**
         * "the Manager row for Chris is closed at system time 2025-06-30 17:00:00. A new Manager
         * row ... 2025-03-01 to 2025-06-30".
         */
        private final List<List<Object>> afterDelete =
                List.of(
                        row(
                                1,
                                "Chris",
                                "Owner",
                                d("2025-01-01"),
                                null,
                                t("2025-01-02 09:00:00"),
                                t("2025-03-01 09:00:00")),
                        row(
                                1,
                                "Chris",
                                "Owner",
                                d("2025-01-01"),
                                d("2025-03-01"),
                                t("2025-03-01 09:00:00"),
                                t("2025-03-15 09:00:00")),
                        row(
                                1,
                                "Chris",
                                "Owner",
                                d("2025-01-01"),
                                d("2025-02-01"),
                                t("2025-03-15 09:00:00"),
                                null),
                        row(
                                1,
                                "Chris",
                                "Team Lead",
                                d("2025-02-01"),
                                d("2025-03-01"),
                                t("2025-03-15 09:00:00"),
                                null),
                        row(
                                1,
                                "Chris",
                                "Manager",
                                d("2025-03-01"),
                                null,
                                t("2025-03-01 09:00:00"),
                                t("2025-06-30 17:00:00")),
                        row(
                                1,
                                "Chris",
                                "Manager",
                                d("2025-03-01"),
                                d("2025-06-30"),
                                t("2025-06-30 17:00:00"),
                                null),
                        row(
                                2,
                                "Dana",
                                "Engineer",
                                d("2025-01-01"),
                                null,
                                t("2025-01-02 09:00:00"),
                                t("2025-04-01 09:00:00")),
                        row(
                                2,
                                "Dana",
                                "Analyst",
                                d("2025-01-01"),
                                null,
                                t("2025-04-01 09:00:00"),
                                null));

        private Run throughStep5() {
            Run r = new Run(f);
            r.feed(chrisOwner, danaEngineer);
            r.feed(chrisManager);
            r.feed(chrisTeamLead);
            r.feed(danaAnalyst);
            return r;
        }

        @Test
        void everyStepOfTheWalkthrough() {
            Run r = new Run(f);
            r.feed(chrisOwner, danaEngineer);
            assertThat(project(r.rows(), printed))
                    .as("after step 2")
                    .containsExactlyInAnyOrderElementsOf(afterStep2);
            r.feed(chrisManager);
            assertThat(project(r.rows(), printed))
                    .as("after step 3")
                    .containsExactlyInAnyOrderElementsOf(afterStep3);
            r.feed(chrisTeamLead);
            assertThat(project(r.rows(), printed))
                    .as("after step 4")
                    .containsExactlyInAnyOrderElementsOf(afterStep4);
            r.feed(danaAnalyst);
            assertThat(project(r.rows(), printed))
                    .as("after step 5")
                    .containsExactlyInAnyOrderElementsOf(afterStep5);
            r.feed(chrisDelete);
            assertThat(project(r.rows(), printed))
                    .as("after the delete")
                    .containsExactlyInAnyOrderElementsOf(afterDelete);
        }

        @Test
        void step2RecordsBothInitialRowsInEitherOrder() {
            Run r = new Run(f);
            r.feed(danaEngineer, chrisOwner);
            assertThat(project(r.rows(), printed)).containsExactlyInAnyOrderElementsOf(afterStep2);
        }

        /**
         * "SELECT employeeId, name, role ... WHERE __END_AT IS NULL AND __SYSTEM_END_AT IS NULL":
         * Chris Manager, Dana Analyst.
         */
        @Test
        void queryCurrentState() {
            List<List<Object>> current =
                    throughStep5().rows().stream()
                            .filter(r -> r.get(6) == null && r.get(8) == null)
                            .map(r -> row(r.get(0), r.get(1), r.get(2)))
                            .collect(Collectors.toList());
            assertThat(current)
                    .containsExactlyInAnyOrder(
                            row(1, "Chris", "Manager"), row(2, "Dana", "Analyst"));
        }

        /**
         * "... WHERE __SYSTEM_END_AT IS NULL ORDER BY employeeId, __START_AT": the corrected
         * history.
         */
        @Test
        void queryBusinessTimeHistory() {
            List<List<Object>> history =
                    throughStep5().rows().stream()
                            .filter(r -> r.get(8) == null)
                            .sorted(
                                    Comparator.<List<Object>, Integer>comparing(
                                                    r -> (Integer) r.get(0))
                                            .thenComparing(r -> (LocalDate) r.get(5)))
                            .map(r -> row(r.get(0), r.get(1), r.get(2), r.get(5), r.get(6)))
                            .collect(Collectors.toList());
            assertThat(history)
                    .containsExactly(
                            row(1, "Chris", "Owner", d("2025-01-01"), d("2025-02-01")),
                            row(1, "Chris", "Team Lead", d("2025-02-01"), d("2025-03-01")),
                            row(1, "Chris", "Manager", d("2025-03-01"), null),
                            row(2, "Dana", "Analyst", d("2025-01-01"), null));
        }

        /**
         * Business time 2025-02-15 as known at system time 2025-03-10 00:00:00: Chris Owner, Dana
         * Engineer.
         */
        @Test
        void queryPastBeliefAboutPastBusinessTime() {
            List<List<Object>> answer =
                    asOf(throughStep5().rows(), f, d("2025-02-15"), t("2025-03-10 00:00:00"));
            assertThat(names(answer))
                    .containsExactlyInAnyOrder(
                            row(1, "Chris", "Owner"), row(2, "Dana", "Engineer"));
        }

        /**
         * "To see what the system believes today, change the system time to the current time": Team
         * Lead, Analyst.
         */
        @Test
        void queryBusinessTimeAsBelievedToday() {
            Set<List<Object>> rows = throughStep5().rows();
            for (LocalDateTime today : List.of(t("2026-01-01 00:00:00"), LocalDateTime.now())) {
                assertThat(names(asOf(rows, f, d("2025-02-15"), today)))
                        .as("as of " + today)
                        .containsExactlyInAnyOrder(
                                row(1, "Chris", "Team Lead"), row(2, "Dana", "Analyst"));
            }
        }

        /**
         * semantics §2/§5: the table after the delete is the same for every arrival order of the 6
         * events.
         */
        @Test
        void everyArrivalOrderGivesTheTableAfterTheDelete() {
            List<ChangeEvent> all =
                    List.of(
                            chrisOwner,
                            danaEngineer,
                            chrisManager,
                            chrisTeamLead,
                            danaAnalyst,
                            chrisDelete);
            for (List<ChangeEvent> arrival : permutations(all)) {
                assertThat(project(run(f, arrival).rows(), printed))
                        .as("arrival " + arrival)
                        .containsExactlyInAnyOrderElementsOf(afterDelete);
            }
        }

        /** semantics §2/§5: steps 1-5 in any arrival order give the step 5 table. */
        @Test
        void everyArrivalOrderGivesTheStep5Table() {
            List<ChangeEvent> all =
                    List.of(chrisOwner, danaEngineer, chrisManager, chrisTeamLead, danaAnalyst);
            for (List<ChangeEvent> arrival : permutations(all)) {
                assertThat(project(run(f, arrival).rows(), printed))
                        .as("arrival " + arrival)
                        .containsExactlyInAnyOrderElementsOf(afterStep5);
            }
        }

        private List<List<Object>> names(List<List<Object>> rows) {
            return rows.stream()
                    .map(r -> row(r.get(0), r.get(1), r.get(2)))
                    .collect(Collectors.toList());
        }
    }

    // ------------------------------------------------------------------------------------------------
    // semantics §12, company A (reference/advanced-auto-cdc.txt, "Bitemporal AUTO CDC examples")
    // ------------------------------------------------------------------------------------------------

    /**
     * CompanyId STRING key, "Data Point" STRING; Sequencing / System Sequencing TIMESTAMP, not kept
     * in the target.
     */
    @Nested
    class CompanyA {
        private final Flow f =
                Flow.builder("companies", TargetType.BITEMPORAL)
                        .column("CompanyId", STRING)
                        .column("Data Point", STRING)
                        .keys("CompanyId")
                        .sequenceBy(TIMESTAMP)
                        .systemSequenceBy(TIMESTAMP)
                        .build();

        private ChangeEvent change(
                Op op, String dataPoint, String sequencing, String systemSequencing) {
            return bitemporal(f, op, t(sequencing), t(systemSequencing), "A", dataPoint);
        }

        private final ChangeEvent change1 =
                change(Op.UPSERT, "XFv1", "2025-07-18 10:01:00", "2025-07-18 10:05:00");
        private final ChangeEvent change2 =
                change(Op.UPSERT, "XFv2", "2025-07-18 12:15:43", "2025-07-18 12:20:00");
        private final ChangeEvent change3 =
                change(Op.UPSERT, "XFv3", "2025-07-18 12:05:00", "2025-07-18 12:25:00");
        private final ChangeEvent change4 =
                change(Op.DELETE, "XFv2", "2025-07-18 12:30:00", "2025-07-18 12:30:00");

        private final List<List<Object>> output1 =
                List.of(
                        row(
                                "A",
                                "XFv1",
                                t("2025-07-18 10:01:00"),
                                null,
                                t("2025-07-18 10:05:00"),
                                null));

        private final List<List<Object>> output2 =
                List.of(
                        row(
                                "A",
                                "XFv1",
                                t("2025-07-18 10:01:00"),
                                null,
                                t("2025-07-18 10:05:00"),
                                t("2025-07-18 12:20:00")),
                        row(
                                "A",
                                "XFv1",
                                t("2025-07-18 10:01:00"),
                                t("2025-07-18 12:15:43"),
                                t("2025-07-18 12:20:00"),
                                null),
                        row(
                                "A",
                                "XFv2",
                                t("2025-07-18 12:15:43"),
                                null,
                                t("2025-07-18 12:20:00"),
                                null));

        private final List<List<Object>> output3 =
                List.of(
                        row(
                                "A",
                                "XFv1",
                                t("2025-07-18 10:01:00"),
                                null,
                                t("2025-07-18 10:05:00"),
                                t("2025-07-18 12:20:00")),
                        row(
                                "A",
                                "XFv1",
                                t("2025-07-18 10:01:00"),
                                t("2025-07-18 12:15:43"),
                                t("2025-07-18 12:20:00"),
                                t("2025-07-18 12:25:00")),
                        row(
                                "A",
                                "XFv1",
                                t("2025-07-18 10:01:00"),
                                t("2025-07-18 12:05:00"),
                                t("2025-07-18 12:25:00"),
                                null),
                        row(
                                "A",
                                "XFv3",
                                t("2025-07-18 12:05:00"),
                                t("2025-07-18 12:15:43"),
                                t("2025-07-18 12:25:00"),
                                null),
                        row(
                                "A",
                                "XFv2",
                                t("2025-07-18 12:15:43"),
                                null,
                                t("2025-07-18 12:20:00"),
                                null));

        private final List<List<Object>> output4 =
                List.of(
                        row(
                                "A",
                                "XFv1",
                                t("2025-07-18 10:01:00"),
                                null,
                                t("2025-07-18 10:05:00"),
                                t("2025-07-18 12:20:00")),
                        row(
                                "A",
                                "XFv1",
                                t("2025-07-18 10:01:00"),
                                t("2025-07-18 12:15:43"),
                                t("2025-07-18 12:20:00"),
                                t("2025-07-18 12:25:00")),
                        row(
                                "A",
                                "XFv1",
                                t("2025-07-18 10:01:00"),
                                t("2025-07-18 12:05:00"),
                                t("2025-07-18 12:25:00"),
                                null),
                        row(
                                "A",
                                "XFv3",
                                t("2025-07-18 12:05:00"),
                                t("2025-07-18 12:15:43"),
                                t("2025-07-18 12:25:00"),
                                null),
                        row(
                                "A",
                                "XFv2",
                                t("2025-07-18 12:15:43"),
                                null,
                                t("2025-07-18 12:20:00"),
                                t("2025-07-18 12:30:00")),
                        row(
                                "A",
                                "XFv2",
                                t("2025-07-18 12:15:43"),
                                t("2025-07-18 12:30:00"),
                                t("2025-07-18 12:30:00"),
                                null));

        @Test
        void everyChangeOutput() {
            Run r = new Run(f);
            r.feed(change1);
            assertThat(r.rows())
                    .as("change 1: insert")
                    .containsExactlyInAnyOrderElementsOf(output1);
            r.feed(change2);
            assertThat(r.rows())
                    .as("change 2: update")
                    .containsExactlyInAnyOrderElementsOf(output2);
            r.feed(change3);
            assertThat(r.rows())
                    .as("change 3: out-of-order update")
                    .containsExactlyInAnyOrderElementsOf(output3);
            r.feed(change4);
            assertThat(r.rows())
                    .as("change 4: delete")
                    .containsExactlyInAnyOrderElementsOf(output4);
        }

        @Test
        void everyArrivalOrderGivesTheFinalOutput() {
            for (List<ChangeEvent> arrival :
                    permutations(List.of(change1, change2, change3, change4))) {
                assertThat(run(f, arrival).rows())
                        .as("arrival " + arrival)
                        .containsExactlyInAnyOrderElementsOf(output4);
            }
        }
    }

    // ------------------------------------------------------------------------------------------------
    // semantics §13, worked examples A-G
    // ------------------------------------------------------------------------------------------------

    private static Flow scd2() {
        return Flow.builder("f", TargetType.SCD2)
                .column("id", INT)
                .column("v", STRING)
                .keys("id")
                .sequenceBy(INT)
                .build();
    }

    private static Flow scd1() {
        return Flow.builder("f", TargetType.SCD1)
                .column("id", INT)
                .column("v", STRING)
                .keys("id")
                .sequenceBy(INT)
                .build();
    }

    private static Flow bitemporal() {
        return Flow.builder("f", TargetType.BITEMPORAL)
                .column("id", INT)
                .column("v", STRING)
                .keys("id")
                .sequenceBy(INT)
                .systemSequenceBy(INT)
                .build();
    }

    /** A. Type 2, a late event merges into its neighbour. */
    @Test
    void exampleA_lateEventMergesIntoItsNeighbour() {
        Flow f = scd2();
        Run r = new Run(f);
        r.feed(upsert(f, 5, 1, "x"));
        assertThat(r.rows()).containsExactlyInAnyOrder(row(1, "x", 5, null));
        List<TargetChange> changes = r.feed(upsert(f, 2, 1, "x"));
        assertThat(r.rows()).containsExactlyInAnyOrder(row(1, "x", 2, null));
        // "the changelog deletes the row keyed __START_AT=5 and inserts the one keyed 2"
        assertThat(describe(changes))
                .containsExactlyInAnyOrder("-D[1, x, 5, null]", "+I[1, x, 2, null]");
        assertAllOrders(
                f,
                List.of(upsert(f, 5, 1, "x"), upsert(f, 2, 1, "x")),
                List.of(row(1, "x", 2, null)));
    }

    /** B. Type 1, a delete's tombstone. */
    @Test
    void exampleB_tombstoneWinsOverOlderEvent() {
        Flow f = scd1();
        Run r = new Run(f);
        r.feed(upsert(f, 1, 1, "a"));
        assertThat(r.rows()).containsExactlyInAnyOrder(row(1, "a"));
        r.feed(delete(f, 5, 1, null));
        assertThat(r.rows()).isEmpty();
        r.feed(upsert(f, 3, 1, "b"));
        assertThat(r.rows()).as("late b@3 < DELETE@5: no row").isEmpty();
        r.feed(upsert(f, 7, 1, "c"));
        assertThat(r.rows()).containsExactlyInAnyOrder(row(1, "c"));
        assertAllOrders(
                f,
                List.of(
                        upsert(f, 1, 1, "a"),
                        delete(f, 5, 1, null),
                        upsert(f, 3, 1, "b"),
                        upsert(f, 7, 1, "c")),
                List.of(row(1, "c")));
    }

    /** C. Bitemporal, a correction that restores an earlier belief. */
    @Test
    void exampleC_correctionRestoresAnEarlierBelief() {
        Flow f = bitemporal();
        Run r = new Run(f);
        r.feed(bitemporal(f, Op.UPSERT, 1, 10, 1, "r1"));
        // (not printed in the contract; by the §5 definition: belief at 10 is [1,-) r1)
        assertThat(r.rows()).containsExactlyInAnyOrder(row(1, "r1", 1, null, 10, null));
        r.feed(bitemporal(f, Op.UPSERT, 3, 20, 1, "r3"));
        // (not printed in the contract; by the §5 definition: belief at 20 is [1,3) r1, [3,-) r3)
        assertThat(r.rows())
                .containsExactlyInAnyOrder(
                        row(1, "r1", 1, null, 10, 20),
                        row(1, "r1", 1, 3, 20, null),
                        row(1, "r3", 3, null, 20, null));
        r.feed(bitemporal(f, Op.UPSERT, 3, 40, 1, "r1"));
        List<List<Object>> expected =
                List.of(
                        row(1, "r1", 1, null, 10, 20),
                        row(1, "r1", 1, 3, 20, 40),
                        row(1, "r3", 3, null, 20, 40),
                        row(1, "r1", 1, null, 40, null));
        assertThat(r.rows()).containsExactlyInAnyOrderElementsOf(expected);
        assertAllOrders(
                f,
                List.of(
                        bitemporal(f, Op.UPSERT, 1, 10, 1, "r1"),
                        bitemporal(f, Op.UPSERT, 3, 20, 1, "r3"),
                        bitemporal(f, Op.UPSERT, 3, 40, 1, "r1")),
                expected);
    }

    /** D. Bitemporal, out of order in system time. */
    @Test
    void exampleD_outOfOrderInSystemTime() {
        Flow f = bitemporal();
        Run r = new Run(f);
        r.feed(bitemporal(f, Op.UPSERT, 1, 10, 1, "A"), bitemporal(f, Op.UPSERT, 5, 30, 1, "B"));
        assertThat(r.rows())
                .containsExactlyInAnyOrder(
                        row(1, "A", 1, null, 10, 30),
                        row(1, "A", 1, 5, 30, null),
                        row(1, "B", 5, null, 30, null));
        List<TargetChange> changes = r.feed(bitemporal(f, Op.UPSERT, 3, 20, 1, "C"));
        List<List<Object>> expected =
                List.of(
                        row(1, "A", 1, null, 10, 20),
                        row(1, "A", 1, 3, 20, null),
                        row(1, "C", 3, null, 20, 30),
                        row(1, "C", 3, 5, 30, null),
                        row(1, "B", 5, null, 30, null));
        assertThat(r.rows()).containsExactlyInAnyOrderElementsOf(expected);
        // "one row's system end moves, one row disappears, three appear"
        assertThat(describe(changes))
                .containsExactlyInAnyOrder(
                        "-U[1, A, 1, null, 10, 30] +U[1, A, 1, null, 10, 20]",
                        "-D[1, A, 1, 5, 30, null]",
                        "+I[1, A, 1, 3, 20, null]",
                        "+I[1, C, 3, null, 20, 30]",
                        "+I[1, C, 3, 5, 30, null]");
        assertAllOrders(
                f,
                List.of(
                        bitemporal(f, Op.UPSERT, 1, 10, 1, "A"),
                        bitemporal(f, Op.UPSERT, 5, 30, 1, "B"),
                        bitemporal(f, Op.UPSERT, 3, 20, 1, "C")),
                expected);
    }

    /**
     * E. Bitemporal with TRACK HISTORY ON (role): untracked note shows the latest business sequence
     * inside the row.
     */
    @Test
    void exampleE_bitemporalUntrackedColumnShowsLatestBusinessSequence() {
        Flow f =
                Flow.builder("f", TargetType.BITEMPORAL)
                        .column("id", INT)
                        .column("role", STRING)
                        .column("note", STRING)
                        .keys("id")
                        .sequenceBy(INT)
                        .systemSequenceBy(INT)
                        .trackHistoryOn(List.of("role"))
                        .build();
        Run r = new Run(f);
        r.feed(bitemporal(f, Op.UPSERT, 2, 5, 1, "s", "a"));
        // (not printed in the contract; by the §5 definition)
        assertThat(r.rows()).containsExactlyInAnyOrder(row(1, "s", "a", 2, null, 5, null));
        r.feed(bitemporal(f, Op.UPSERT, 4, 6, 1, "s", "b"));
        assertThat(r.rows()).containsExactlyInAnyOrder(row(1, "s", "b", 2, null, 5, null));
        r.feed(bitemporal(f, Op.UPSERT, 3, 7, 1, "s", "c"));
        assertThat(r.rows())
                .as("the row still shows note b")
                .containsExactlyInAnyOrder(row(1, "s", "b", 2, null, 5, null));
        assertAllOrders(
                f,
                List.of(
                        bitemporal(f, Op.UPSERT, 2, 5, 1, "s", "a"),
                        bitemporal(f, Op.UPSERT, 4, 6, 1, "s", "b"),
                        bitemporal(f, Op.UPSERT, 3, 7, 1, "s", "c")),
                List.of(row(1, "s", "b", 2, null, 5, null)));
    }

    /**
     * F. Type 2 with TRACK HISTORY ON (role): a late tracked change splits the row and refolds the
     * untracked column.
     */
    @Test
    void exampleF_scd2LateTrackedChangeSplitsTheRow() {
        Flow f =
                Flow.builder("f", TargetType.SCD2)
                        .column("id", INT)
                        .column("role", STRING)
                        .column("note", STRING)
                        .keys("id")
                        .sequenceBy(INT)
                        .trackHistoryOn(List.of("role"))
                        .build();
        Run r = new Run(f);
        r.feed(upsert(f, 2, 1, "s", "a"));
        // (not printed in the contract; by the §4 definition)
        assertThat(r.rows()).containsExactlyInAnyOrder(row(1, "s", "a", 2, null));
        r.feed(upsert(f, 4, 1, "s", "b"));
        assertThat(r.rows()).containsExactlyInAnyOrder(row(1, "s", "b", 2, null));
        r.feed(upsert(f, 3, 1, "t", "c"));
        List<List<Object>> expected =
                List.of(row(1, "s", "a", 2, 3), row(1, "t", "c", 3, 4), row(1, "s", "b", 4, null));
        assertThat(r.rows()).containsExactlyInAnyOrderElementsOf(expected);
        assertAllOrders(
                f,
                List.of(
                        upsert(f, 2, 1, "s", "a"),
                        upsert(f, 4, 1, "s", "b"),
                        upsert(f, 3, 1, "t", "c")),
                expected);
    }

    /**
     * G. Bitemporal, two events at one system time: the row [1,-) A is deleted/replaced, never
     * closed.
     */
    @Test
    void exampleG_twoEventsAtOneSystemTime() {
        Flow f = bitemporal();
        Run r = new Run(f);
        List<TargetChange> first = r.feed(bitemporal(f, Op.UPSERT, 1, 10, 1, "A"));
        assertThat(describe(first)).containsExactly("+I[1, A, 1, null, 10, null]");
        List<TargetChange> second = r.feed(bitemporal(f, Op.UPSERT, 5, 10, 1, "B"));
        List<List<Object>> expected =
                List.of(row(1, "A", 1, 5, 10, null), row(1, "B", 5, null, 10, null));
        assertThat(r.rows()).containsExactlyInAnyOrderElementsOf(expected);
        // The row [1,-) A sys[10,-) is retracted (deleted, or replaced under its primary key) ...
        assertThat(second)
                .as("changes " + describe(second))
                .anySatisfy(
                        c -> {
                            assertThat(c.kind())
                                    .isIn(TargetChange.Kind.DELETE, TargetChange.Kind.UPDATE);
                            assertThat(Arrays.asList(c.before()))
                                    .isEqualTo(row(1, "A", 1, null, 10, null));
                        });
        // ... and never closed: no change writes a row with a system end (sys[10,10) would be an
        // empty interval).
        assertThat(second)
                .as("changes " + describe(second))
                .allSatisfy(
                        c -> {
                            if (c.after() != null) {
                                assertThat(c.after()[5])
                                        .as("__SYSTEM_END_AT of " + Arrays.asList(c.after()))
                                        .isNull();
                            }
                        });
        assertAllOrders(
                f,
                List.of(
                        bitemporal(f, Op.UPSERT, 1, 10, 1, "A"),
                        bitemporal(f, Op.UPSERT, 5, 10, 1, "B")),
                expected);
    }

    // ------------------------------------------------------------------------------------------------
    // helpers
    // ------------------------------------------------------------------------------------------------

    /** One flow's driver and materialized table, fed step by step. */
    private static final class Run {
        private final CoreDriver driver;
        private final MaterializedTable table;

        Run(Flow flow) {
            this.driver = new CoreDriver(flow);
            this.table = new MaterializedTable(driver.primaryKey());
        }

        /**
         * Applies the events in order; returns the changes they produced (already applied to the
         * table).
         */
        List<TargetChange> feed(ChangeEvent... events) {
            List<TargetChange> all = new ArrayList<>();
            for (ChangeEvent e : events) {
                List<TargetChange> changes = driver.apply(e);
                table.applyAll(changes);
                all.addAll(changes);
            }
            return all;
        }

        Set<List<Object>> rows() {
            return table.rows();
        }
    }

    private static Run run(Flow flow, List<ChangeEvent> events) {
        Run r = new Run(flow);
        r.feed(events.toArray(new ChangeEvent[0]));
        return r;
    }

    private static void assertAllOrders(
            Flow flow, List<ChangeEvent> events, List<List<Object>> expected) {
        for (List<ChangeEvent> arrival : permutations(events)) {
            assertThat(run(flow, arrival).rows())
                    .as("arrival " + arrival)
                    .containsExactlyInAnyOrderElementsOf(expected);
        }
    }

    /**
     * semantics §9 as-of query on a bitemporal table: the rows with {@code __START_AT <= B <
     * coalesce(__END_AT, +inf)} and {@code __SYSTEM_START_AT <= S < coalesce(__SYSTEM_END_AT,
     * +inf)}.
     */
    private static List<List<Object>> asOf(
            Set<List<Object>> rows, Flow flow, Object business, Object system) {
        int n = flow.columnCount();
        Predicate<List<Object>> believed =
                r ->
                        within(business, r.get(n), r.get(n + 1))
                                && within(system, r.get(n + 2), r.get(n + 3));
        return rows.stream().filter(believed).collect(Collectors.toList());
    }

    /** {@code start <= x < coalesce(end, +inf)}. */
    private static boolean within(Object x, Object start, Object end) {
        return Values.compare(start, x) <= 0 && (end == null || Values.compare(x, end) < 0);
    }

    private static List<List<Object>> project(Set<List<Object>> rows, int... columns) {
        List<List<Object>> out = new ArrayList<>();
        for (List<Object> r : rows) {
            Object[] p = new Object[columns.length];
            for (int i = 0; i < columns.length; i++) {
                p[i] = r.get(columns[i]);
            }
            out.add(Arrays.asList(p));
        }
        return out;
    }

    private static List<String> describe(List<TargetChange> changes) {
        List<String> out = new ArrayList<>();
        for (TargetChange c : changes) {
            switch (c.kind()) {
                case INSERT:
                    out.add("+I" + Arrays.asList(c.after()));
                    break;
                case DELETE:
                    out.add("-D" + Arrays.asList(c.before()));
                    break;
                default:
                    out.add("-U" + Arrays.asList(c.before()) + " +U" + Arrays.asList(c.after()));
            }
        }
        return out;
    }

    private static <T> List<List<T>> permutations(List<T> items) {
        List<List<T>> out = new ArrayList<>();
        permute(new ArrayList<>(items), 0, out);
        return out;
    }

    private static <T> void permute(List<T> items, int from, List<List<T>> out) {
        if (from == items.size()) {
            out.add(new ArrayList<>(items));
            return;
        }
        for (int i = from; i < items.size(); i++) {
            Collections.swap(items, from, i);
            permute(items, from + 1, out);
            Collections.swap(items, from, i);
        }
    }

    private static ChangeEvent upsert(Flow f, Object sequence, Object... row) {
        return new ChangeEvent(Op.UPSERT, row, f.sequenceCodec().encode(sequence), null, null);
    }

    private static ChangeEvent delete(Flow f, Object sequence, Object... row) {
        return new ChangeEvent(Op.DELETE, row, f.sequenceCodec().encode(sequence), null, null);
    }

    private static ChangeEvent bitemporal(
            Flow f, Op op, Object sequence, Object systemSequence, Object... row) {
        return new ChangeEvent(
                op,
                row,
                f.sequenceCodec().encode(sequence),
                f.systemSequenceCodec().encode(systemSequence),
                null);
    }

    private static List<Object> row(Object... values) {
        return Arrays.asList(values);
    }

    private static <T> List<T> reversed(List<T> list) {
        List<T> out = new ArrayList<>(list);
        Collections.reverse(out);
        return out;
    }

    private static LocalDate d(String isoDate) {
        return LocalDate.parse(isoDate);
    }

    private static LocalDateTime t(String dateTime) {
        return LocalDateTime.parse(dateTime.replace(' ', 'T'));
    }
}
