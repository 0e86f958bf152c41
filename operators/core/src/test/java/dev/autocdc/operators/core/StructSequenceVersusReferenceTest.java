package dev.autocdc.operators.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.operators.core.EngineVersusReferenceTest.Partial;
import dev.autocdc.operators.core.EngineVersusReferenceTest.Setup;
import dev.autocdc.operators.reference.ReferenceModel;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The property test of {@link EngineVersusReferenceTest} with {@code SEQUENCE BY STRUCT(day, n)}
 * (day STRING, n INT), whose first field ties between a key's events and the second decides
 * (semantics §1: field by field; §6: a tie in both goes to the tie rules). The reference model
 * orders integer sequences, so the reference sequence s (1 to 6) stands for the struct (DAYS[(s -
 * 1) / 2], (s - 1) % 2 + 1): ("a", 1) &lt; ("a", 2) &lt; ("ab", 1) &lt; ... &lt; ("b", 2), a
 * bijection that keeps the order ("a" is a prefix of "ab", so the STRING field's end counts). The
 * sequences 1 and 2, 3 and 4, 5 and 6 tie in the first field. A kept sequence (the target keeps day
 * and n) is the reference's one sequence column. Every set of events, every option combination, fed
 * in several shuffled orders, must give the reference's table with the engine's structs mapped back
 * to s; coverage counters prove the ties happened.
 */
class StructSequenceVersusReferenceTest {
    private static final int SETS_PER_TYPE = 1500;
    private static final int ORDERS_PER_SET = 4;
    private static final String[] DAYS = {"a", "ab", "b"};
    private static final ColumnType STRING = ColumnType.of(ColumnType.Kind.STRING);
    private static final ColumnType INT = ColumnType.of(ColumnType.Kind.INT);
    private static final ColumnType STRUCT =
            ColumnType.row(List.of("day", "n"), List.of(STRING, INT));

    private final Map<String, Integer> coverage = new TreeMap<>();

    @Test
    void scd1WithAStructSequenceMatchesTheReference() {
        run(TargetType.SCD1, 111L);
    }

    @Test
    void scd2WithAStructSequenceMatchesTheReference() {
        run(TargetType.SCD2, 222L);
    }

    @Test
    void bitemporalWithAStructSequenceMatchesTheReference() {
        run(TargetType.BITEMPORAL, 333L);
    }

    private void run(TargetType type, long seed) {
        Random random = new Random(seed);
        for (int set = 0; set < SETS_PER_TYPE; set++) {
            Setup setup =
                    new Setup(
                            type,
                            Partial.values()[random.nextInt(Partial.values().length)],
                            random.nextBoolean(),
                            type == TargetType.BITEMPORAL && random.nextBoolean(),
                            type != TargetType.SCD1 && random.nextBoolean());
            StructFlow flow = new StructFlow(setup);
            List<ReferenceModel.Event> events =
                    EngineVersusReferenceTest.randomEvents(random, setup);
            Set<List<Object>> expected = setup.reference(events);
            String context = "seed " + seed + " set " + set + " " + setup + " events " + events;
            countTies(events);
            for (int order = 0; order < ORDERS_PER_SET; order++) {
                List<ReferenceModel.Event> arrival = new ArrayList<>(events);
                Collections.shuffle(arrival, random);
                countLateSecondFields(arrival);
                CoreDriver driver = new CoreDriver(flow.flow);
                MaterializedTable table = new MaterializedTable(flow.primaryKey());
                try {
                    for (ReferenceModel.Event e : arrival) {
                        for (TargetChange c : driver.apply(flow.toChangeEvent(e))) {
                            table.apply(flow.toReference(c));
                        }
                    }
                } catch (RuntimeException | AssertionError failure) {
                    throw new AssertionError(
                            context + " arrival " + arrival + ": " + failure, failure);
                }
                assertThat(table.rows()).as(context + " arrival " + arrival).isEqualTo(expected);
            }
        }
        System.out.println(type + " STRUCT sequence coverage: " + coverage);
        assertThat(coverage.getOrDefault("first field tie, second decides", 0))
                .as("sets where two events of a key tie in day and differ in n")
                .isGreaterThan(300);
        assertThat(coverage.getOrDefault("tie in both fields", 0))
                .as("sets where two different events of a key tie in day and n (§6 decides)")
                .isGreaterThan(100);
        assertThat(coverage.getOrDefault("first field a prefix of another", 0))
                .as("sets where a key has events on day a and on day ab")
                .isGreaterThan(100);
        assertThat(coverage.getOrDefault("arrived before a smaller n of its day", 0))
                .as("arrivals where the second field has to put an earlier arrival after a later")
                .isGreaterThan(1000);
    }

    /** The set's pairs of distinct events of one key: how their structs compare. */
    private void countTies(List<ReferenceModel.Event> events) {
        List<ReferenceModel.Event> distinct = new ArrayList<>(new HashSet<>(events));
        boolean firstFieldTie = false;
        boolean fullTie = false;
        boolean prefix = false;
        for (ReferenceModel.Event a : distinct) {
            for (ReferenceModel.Event b : distinct) {
                if (a == b || a.key() == null || !a.key().equals(b.key())) {
                    continue;
                }
                firstFieldTie |= day(a.seq()).equals(day(b.seq())) && a.seq() != b.seq();
                fullTie |= a.seq() == b.seq() && Objects.equals(a.sys(), b.sys());
                prefix |= day(a.seq()).equals("a") && day(b.seq()).equals("ab");
            }
        }
        bumpIf(firstFieldTie, "first field tie, second decides");
        bumpIf(fullTie, "tie in both fields");
        bumpIf(prefix, "first field a prefix of another");
    }

    /** Whether an event of a key arrives after one of its day with a greater n. */
    private void countLateSecondFields(List<ReferenceModel.Event> arrival) {
        for (int i = 0; i < arrival.size(); i++) {
            ReferenceModel.Event later = arrival.get(i);
            for (ReferenceModel.Event earlier : arrival.subList(0, i)) {
                if (later.key() != null
                        && later.key().equals(earlier.key())
                        && day(later.seq()).equals(day(earlier.seq()))
                        && n(later.seq()) < n(earlier.seq())) {
                    bumpIf(true, "arrived before a smaller n of its day");
                    return;
                }
            }
        }
    }

    private void bumpIf(boolean happened, String counter) {
        if (happened) {
            coverage.merge(counter, 1, Integer::sum);
        }
    }

    static String day(int seq) {
        return DAYS[(seq - 1) / 2];
    }

    static int n(int seq) {
        return (seq - 1) % 2 + 1;
    }

    /** The reference sequence a struct stands for. */
    static int seq(Object day, Object n) {
        return List.of(DAYS).indexOf(day) * 2 + (Integer) n;
    }

    /**
     * The engine's flow for one {@link Setup}: its columns with the kept sequence as two columns,
     * day and n, and SEQUENCE BY the STRUCT; and the mapping of its rows back to the reference's.
     */
    static final class StructFlow {
        final Setup setup;
        final Flow flow;
        private final SequenceCodec structs = new SequenceCodec(STRUCT);
        private final SequenceCodec ints = new SequenceCodec(INT);

        StructFlow(Setup setup) {
            this.setup = setup;
            FlowBuilder b =
                    Flow.builder("flow", setup.type)
                            .column("id", INT)
                            .column("v1", STRING)
                            .column("v2", STRING)
                            .keys("id")
                            .sequenceBy(STRUCT);
            if (setup.keepSequence) {
                b.column("day", STRING).column("n", INT).sequenceColumns("day", "n");
            }
            if (setup.type == TargetType.BITEMPORAL) {
                b.systemSequenceBy(INT);
            }
            if (setup.keepSystemSequence) {
                b.column("sys", INT).sequenceColumns("sys");
            }
            switch (setup.partial) {
                case IGNORE_ALL -> b.ignoreNullUpdates();
                case IGNORE_ON_V1 -> b.ignoreNullUpdatesOn(List.of("v1"));
                case IGNORE_EXCEPT_V1 -> b.ignoreNullUpdatesExcept(List.of("v1"));
                case COLUMNS_TO_UPDATE -> b.columnsToUpdate();
                default -> {}
            }
            if (setup.trackV1Only) {
                b.trackHistoryOn(List.of("v1"));
            }
            this.flow = b.build();
        }

        ChangeEvent toChangeEvent(ReferenceModel.Event e) {
            List<Object> row = new ArrayList<>();
            row.add(e.key());
            row.add(e.values().get(0));
            row.add(e.values().get(1));
            if (setup.keepSequence) {
                row.add(day(e.seq()));
                row.add(n(e.seq()));
            }
            if (setup.keepSystemSequence) {
                row.add(e.values().get(e.values().size() - 1));
            }
            boolean[] written = null;
            if (e.columnsToUpdate() != null) {
                written = new boolean[row.size()];
                for (String c : e.columnsToUpdate()) {
                    if (c.equals("seq")) {
                        written[flow.indexOf("day")] = true;
                        written[flow.indexOf("n")] = true;
                    } else {
                        written[flow.indexOf(c)] = true;
                    }
                }
            }
            Op op =
                    switch (e.kind()) {
                        case UPSERT -> Op.UPSERT;
                        case DELETE -> Op.DELETE;
                        case TRUNCATE -> Op.TRUNCATE;
                    };
            return new ChangeEvent(
                    op,
                    row.toArray(),
                    structs.encode(new Object[] {day(e.seq()), n(e.seq())}),
                    e.sys() == null ? null : ints.encode(e.sys()),
                    written);
        }

        /** A change with its rows as the reference writes them: each struct as its s. */
        TargetChange toReference(TargetChange c) {
            return switch (c.kind()) {
                case INSERT -> TargetChange.insert(toReference(c.after()));
                case UPDATE -> TargetChange.update(toReference(c.before()), toReference(c.after()));
                case DELETE -> TargetChange.delete(toReference(c.before()));
            };
        }

        private Object[] toReference(Object[] row) {
            List<Object> out = new ArrayList<>();
            int base = flow.columnCount();
            for (int i = 0; i < base; i++) {
                if (setup.keepSequence && i == flow.indexOf("day")) {
                    out.add(StructSequenceVersusReferenceTest.seq(row[i], row[++i]));
                } else {
                    out.add(row[i]);
                }
            }
            if (setup.type != TargetType.SCD1) {
                out.add(seqOf((Object[]) row[base]));
                out.add(row[base + 1] == null ? null : seqOf((Object[]) row[base + 1]));
            }
            if (setup.type == TargetType.BITEMPORAL) {
                out.add(row[base + 2]);
                out.add(row[base + 3]);
            }
            return out.toArray();
        }

        private static int seqOf(Object[] struct) {
            assertThat(struct).hasSize(2);
            return StructSequenceVersusReferenceTest.seq(struct[0], struct[1]);
        }

        /** The primary key's positions in the reference's rows (semantics §3 to §5). */
        int[] primaryKey() {
            int base = 1 + setup.valueColumns.size();
            return switch (setup.type) {
                case SCD1 -> new int[] {0};
                case SCD2 -> new int[] {0, base};
                case BITEMPORAL -> new int[] {0, base, base + 2};
            };
        }
    }
}
