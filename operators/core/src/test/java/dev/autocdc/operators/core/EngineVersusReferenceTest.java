package dev.autocdc.operators.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.operators.reference.ReferenceModel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Property test: random event sets over small domains (sequences 1..6, system sequences 1..6,
 * values {a, b, null}, 1-3 keys), every flow option combination, each set fed to the engine in
 * several shuffled orders. After every run the materialized changelog must equal the slow reference
 * model written from the contract alone, and every change must be well formed. Coverage counters
 * prove the hard cases happened.
 */
class EngineVersusReferenceTest {
    private static final int SETS_PER_TYPE = 2500;
    private static final int ORDERS_PER_SET = 4;
    private static final Map<String, Integer> COVERAGE = new TreeMap<>();

    /**
     * The option combinations: IGNORE NULL UPDATES forms and COLUMNS TO UPDATE exclude each other.
     */
    enum Partial {
        FULL_ROW,
        IGNORE_ALL,
        IGNORE_ON_V1,
        IGNORE_EXCEPT_V1,
        COLUMNS_TO_UPDATE
    }

    @Test
    void scd1MatchesTheReference() {
        run(TargetType.SCD1, 11L);
    }

    @Test
    void scd2MatchesTheReference() {
        run(TargetType.SCD2, 22L);
    }

    @Test
    void bitemporalMatchesTheReference() {
        run(TargetType.BITEMPORAL, 33L);
    }

    @AfterAll
    static void coverageWasReached() {
        System.out.println("coverage counters: " + COVERAGE);
        for (String hardCase :
                List.of(
                        "scd1.conflicting_tie",
                        "scd1.exact_duplicate",
                        "scd1.delete_then_reinsert",
                        "scd1.truncate",
                        "scd1.late_event_changes_columns",
                        "scd2.conflicting_tie",
                        "scd2.exact_duplicate",
                        "scd2.delete_then_reinsert",
                        "scd2.late_merge",
                        "scd2.late_split",
                        "scd2.untracked_only_change",
                        "scd2.late_changes_later_rows",
                        "bitemporal.conflicting_tie",
                        "bitemporal.exact_duplicate",
                        "bitemporal.delete_then_reinsert",
                        "bitemporal.correction_same_business_time",
                        "bitemporal.late_in_system_time",
                        "bitemporal.shared_system_time",
                        "bitemporal.late_business_time_in_system_order",
                        "bitemporal.untracked_only_change",
                        "bitemporal.late_merge",
                        "bitemporal.late_split")) {
            assertThat(COVERAGE.getOrDefault(hardCase, 0))
                    .as("coverage of " + hardCase)
                    .isGreaterThan(20);
        }
    }

    private void run(TargetType type, long seed) {
        Random random = new Random(seed);
        int combos =
                Partial.values().length
                        * 2
                        * (type == TargetType.SCD1 ? 1 : 2)
                        * (type == TargetType.BITEMPORAL ? 2 : 1);
        for (int set = 0; set < SETS_PER_TYPE; set++) {
            int combo = set % combos;
            Partial partial = Partial.values()[combo % Partial.values().length];
            int rest = combo / Partial.values().length;
            boolean keepSequence = rest % 2 == 1;
            rest /= 2;
            boolean trackV1Only = type != TargetType.SCD1 && rest % 2 == 1;
            rest = type != TargetType.SCD1 ? rest / 2 : rest;
            boolean keepSystemSequence = type == TargetType.BITEMPORAL && rest % 2 == 1;
            Setup setup = new Setup(type, partial, keepSequence, keepSystemSequence, trackV1Only);
            List<ReferenceModel.Event> events = randomEvents(random, setup);
            String context = "seed " + seed + " set " + set + " " + setup + " events " + events;
            Set<List<Object>> expected = setup.reference(events);
            count(type, events, setup);
            for (int order = 0; order < ORDERS_PER_SET; order++) {
                List<ReferenceModel.Event> arrival = new ArrayList<>(events);
                Collections.shuffle(arrival, random);
                CoreDriver driver = new CoreDriver(setup.flow);
                MaterializedTable table = new MaterializedTable(driver.primaryKey());
                Map<Object, Integer> newestSeq = new TreeMap<>();
                Map<Object, Integer> newestSys = new TreeMap<>();
                for (ReferenceModel.Event e : arrival) {
                    if (type == TargetType.BITEMPORAL && e.key() != null && e.sys() != null) {
                        Integer seq = newestSeq.get(e.key());
                        Integer sys = newestSys.get(e.key());
                        if (seq != null && e.seq() < seq && sys != null && e.sys() > sys) {
                            bump("bitemporal.late_business_time_in_system_order"); // the
                            // in-order path's late case
                        }
                        newestSys.merge(e.key(), e.sys(), Math::max);
                    }
                    List<TargetChange> changes;
                    try {
                        changes = driver.apply(setup.toChangeEvent(e));
                        table.applyAll(changes);
                    } catch (RuntimeException | AssertionError failure) {
                        throw new AssertionError(
                                context + " arrival " + arrival + ": " + failure, failure);
                    }
                    if (e.key() != null) {
                        Integer newest = newestSeq.get(e.key());
                        if (newest != null && e.seq() < newest) {
                            countLate(type, changes, e.seq());
                        }
                        newestSeq.merge(e.key(), e.seq(), Math::max);
                    }
                    countChanges(type, changes);
                    if (type == TargetType.BITEMPORAL) {
                        try {
                            driver.checkBitemporalBookkeeping();
                        } catch (AssertionError failure) {
                            throw new AssertionError(
                                    context
                                            + " arrival "
                                            + arrival
                                            + " after "
                                            + e
                                            + ": "
                                            + failure,
                                    failure);
                        }
                    }
                }
                assertThat(table.rows()).as(context + " arrival " + arrival).isEqualTo(expected);
            }
        }
    }

    private static void countLate(TargetType type, List<TargetChange> changes, int seq) {
        String prefix = type.name().toLowerCase();
        if (type == TargetType.SCD1) {
            if (!changes.isEmpty()) {
                bump(prefix + ".late_event_changes_columns");
            }
            return;
        }
        int endColumn = type == TargetType.SCD2 ? 2 : 4;
        for (TargetChange c : changes) {
            if (c.kind() == TargetChange.Kind.DELETE && type == TargetType.SCD2) {
                bump(prefix + ".late_merge");
            }
            if (c.kind() == TargetChange.Kind.INSERT
                    && c.after()[c.after().length - endColumn + 1] != null
                    && (type == TargetType.SCD2 || c.after()[c.after().length - 1] == null)) {
                bump(prefix + ".late_split");
            }
            if (type == TargetType.BITEMPORAL
                    && c.kind() == TargetChange.Kind.INSERT
                    && c.after()[c.after().length - 3] == null
                    && c.after()[c.after().length - 1] == null) {
                bump(prefix + ".late_merge");
            }
        }
        for (TargetChange c : changes) {
            // a late event that changes the content of a row starting after it: the refold of the
            // contract
            // §13 F
            if (c.kind() == TargetChange.Kind.UPDATE
                    && (Integer) c.before()[c.before().length - endColumn] > seq
                    && !Values.sameRow(
                            Arrays.copyOf(c.before(), c.before().length - endColumn),
                            Arrays.copyOf(c.after(), c.after().length - endColumn))) {
                bump(prefix + ".late_changes_later_rows");
            }
        }
    }

    private static void countChanges(TargetType type, List<TargetChange> changes) {
        if (type == TargetType.SCD1) {
            return;
        }
        int n = type == TargetType.SCD2 ? 2 : 4;
        for (TargetChange c : changes) {
            if (c.kind() == TargetChange.Kind.UPDATE) {
                Object[] b = c.before();
                Object[] a = c.after();
                boolean sameIntervals = true;
                for (int i = b.length - n; i < b.length; i++) {
                    sameIntervals &= Values.same(b[i], a[i]);
                }
                if (sameIntervals) {
                    bump(type.name().toLowerCase() + ".untracked_only_change");
                }
            }
        }
    }

    private static void count(TargetType type, List<ReferenceModel.Event> events, Setup setup) {
        String prefix = type.name().toLowerCase();
        Set<ReferenceModel.Event> distinct = new HashSet<>(events);
        if (distinct.size() < events.size()) {
            bump(prefix + ".exact_duplicate");
        }
        List<ReferenceModel.Event> list = new ArrayList<>(distinct);
        boolean tie = false;
        boolean reinsert = false;
        boolean correction = false;
        boolean sharedSystem = false;
        boolean lateSystem = false;
        for (ReferenceModel.Event a : list) {
            for (ReferenceModel.Event b : list) {
                if (a == b || a.key() == null || !a.key().equals(b.key())) {
                    continue;
                }
                if (a.seq() == b.seq() && Objects.equals(a.sys(), b.sys())) {
                    tie = true;
                }
                if (a.kind() != ReferenceModel.Kind.UPSERT
                        && b.kind() == ReferenceModel.Kind.UPSERT
                        && b.seq() > a.seq()) {
                    reinsert = true;
                }
                if (type == TargetType.BITEMPORAL) {
                    correction |= a.seq() == b.seq() && a.sys() < b.sys();
                    sharedSystem |= a.sys().equals(b.sys()) && a.seq() != b.seq();
                    lateSystem |= a.sys() < b.sys();
                }
            }
        }
        if (tie) {
            bump(prefix + ".conflicting_tie");
        }
        if (reinsert) {
            bump(prefix + ".delete_then_reinsert");
        }
        if (correction) {
            bump(prefix + ".correction_same_business_time");
        }
        if (sharedSystem) {
            bump(prefix + ".shared_system_time");
        }
        if (lateSystem) {
            bump(prefix + ".late_in_system_time"); // with shuffled arrival, the later-recorded
            // event often comes first
        }
        if (events.stream().anyMatch(e -> e.kind() == ReferenceModel.Kind.TRUNCATE)) {
            bump(prefix + ".truncate");
        }
    }

    private static synchronized void bump(String counter) {
        COVERAGE.merge(counter, 1, Integer::sum);
    }

    static List<ReferenceModel.Event> randomEvents(Random random, Setup setup) {
        int keys = 1 + random.nextInt(3);
        int size = 1 + random.nextInt(10);
        List<ReferenceModel.Event> events = new ArrayList<>();
        String[] domain = {"a", "b", null};
        for (int i = 0; i < size; i++) {
            if (i > 0 && random.nextInt(10) == 0) {
                events.add(events.get(random.nextInt(events.size()))); // an exact duplicate
                continue;
            }
            int key = 1 + random.nextInt(keys);
            int seq = 1 + random.nextInt(6);
            Integer sys = setup.type == TargetType.BITEMPORAL ? 1 + random.nextInt(6) : null;
            int roll = random.nextInt(10);
            ReferenceModel.Kind kind =
                    roll < 7
                            ? ReferenceModel.Kind.UPSERT
                            : roll < 9 || setup.type != TargetType.SCD1
                                    ? ReferenceModel.Kind.DELETE
                                    : ReferenceModel.Kind.TRUNCATE;
            List<Object> values = new ArrayList<>();
            values.add(domain[random.nextInt(3)]);
            values.add(domain[random.nextInt(3)]);
            if (setup.keepSequence) {
                values.add(seq);
            }
            if (setup.keepSystemSequence) {
                values.add(sys);
            }
            Set<String> columnsToUpdate = null;
            if (setup.partial == Partial.COLUMNS_TO_UPDATE && random.nextInt(4) != 0) {
                columnsToUpdate = new LinkedHashSet<>();
                for (String c : setup.valueColumns) {
                    if (random.nextBoolean()) {
                        columnsToUpdate.add(c);
                    }
                }
            }
            events.add(
                    new ReferenceModel.Event(
                            kind == ReferenceModel.Kind.TRUNCATE && random.nextBoolean()
                                    ? null
                                    : key,
                            seq,
                            sys,
                            kind,
                            values,
                            columnsToUpdate));
        }
        return events;
    }

    /** One option combination, as a core {@link Flow} and as reference-model options. */
    static final class Setup {
        final TargetType type;
        final Partial partial;
        final boolean keepSequence;
        final boolean keepSystemSequence;
        final boolean trackV1Only;
        final List<String> valueColumns = new ArrayList<>(List.of("v1", "v2"));
        final Flow flow;
        final ReferenceModel.Options options;
        private final SequenceCodec codec = new SequenceCodec(ColumnType.of(ColumnType.Kind.INT));

        Setup(
                TargetType type,
                Partial partial,
                boolean keepSequence,
                boolean keepSystemSequence,
                boolean trackV1Only) {
            this.type = type;
            this.partial = partial;
            this.keepSequence = keepSequence;
            this.keepSystemSequence = keepSystemSequence;
            this.trackV1Only = trackV1Only;
            ColumnType string = ColumnType.of(ColumnType.Kind.STRING);
            ColumnType integer = ColumnType.of(ColumnType.Kind.INT);
            FlowBuilder b =
                    Flow.builder("flow", type)
                            .column("id", integer)
                            .column("v1", string)
                            .column("v2", string)
                            .keys("id")
                            .sequenceBy(integer);
            if (keepSequence) {
                valueColumns.add("seq");
                b.column("seq", integer).sequenceColumns("seq");
            }
            if (type == TargetType.BITEMPORAL) {
                b.systemSequenceBy(integer);
            }
            if (keepSystemSequence) {
                valueColumns.add("sys");
                b.column("sys", integer).sequenceColumns("sys");
            }
            Set<String> ignoreNull = new HashSet<>();
            switch (partial) {
                case IGNORE_ALL:
                    b.ignoreNullUpdates();
                    ignoreNull.addAll(List.of("v1", "v2"));
                    break;
                case IGNORE_ON_V1:
                    b.ignoreNullUpdatesOn(List.of("v1"));
                    ignoreNull.add("v1");
                    break;
                case IGNORE_EXCEPT_V1:
                    b.ignoreNullUpdatesExcept(List.of("v1"));
                    ignoreNull.add("v2");
                    break;
                case COLUMNS_TO_UPDATE:
                    b.columnsToUpdate();
                    break;
                default:
            }
            if (trackV1Only) {
                b.trackHistoryOn(List.of("v1"));
            }
            this.flow = b.build();
            this.options =
                    new ReferenceModel.Options(
                            valueColumns,
                            ignoreNull,
                            partial == Partial.COLUMNS_TO_UPDATE,
                            trackV1Only ? Set.of("v1") : null,
                            keepSequence ? "seq" : null,
                            keepSystemSequence ? "sys" : null);
        }

        Set<List<Object>> reference(List<ReferenceModel.Event> events) {
            switch (type) {
                case SCD1:
                    return ReferenceModel.scd1(events, options);
                case SCD2:
                    return ReferenceModel.scd2(events, options);
                default:
                    return ReferenceModel.bitemporal(events, options);
            }
        }

        ChangeEvent toChangeEvent(ReferenceModel.Event e) {
            Object[] row = new Object[1 + valueColumns.size()];
            row[0] = e.key();
            for (int i = 0; i < valueColumns.size(); i++) {
                row[i + 1] = e.values().get(i);
            }
            boolean[] written = null;
            if (e.columnsToUpdate() != null) {
                written = new boolean[row.length];
                for (String c : e.columnsToUpdate()) {
                    written[flow.indexOf(c)] = true;
                }
            }
            Op op =
                    e.kind() == ReferenceModel.Kind.UPSERT
                            ? Op.UPSERT
                            : e.kind() == ReferenceModel.Kind.DELETE ? Op.DELETE : Op.TRUNCATE;
            return new ChangeEvent(
                    op,
                    row,
                    codec.encode(e.seq()),
                    e.sys() == null ? null : codec.encode(e.sys()),
                    written);
        }

        @Override
        public String toString() {
            return type
                    + " "
                    + partial
                    + (keepSequence ? " +seq" : "")
                    + (keepSystemSequence ? " +sys" : "")
                    + (trackV1Only ? " track(v1)" : "");
        }
    }
}
