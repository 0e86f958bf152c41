package dev.autocdc.operators.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The bitemporal engine's direct rows for an event after the belief's newest sequence ({@link
 * BitemporalAppended}) equal those of its general path (version changes paired with believed rows),
 * change by change, in order, with the same head and the same system starts on the belief's
 * entries: random events of two keys sharing each engine, mostly in system order, fed to an engine
 * of each kind. That the direct path ran is observed, not assumed: when an event closes a version,
 * the general path writes the event's entry and then records the system start on it (two puts), the
 * direct path writes it once. Coverage counters prove each row transition took it.
 */
class BitemporalAppendedTest {
    private static final ColumnType INT = ColumnType.of(ColumnType.Kind.INT);
    private static final ColumnType STRING = ColumnType.of(ColumnType.Kind.STRING);
    private static final SequenceCodec CODEC = new SequenceCodec(INT);
    private static final String[] VALUES = {"a", "b", null};

    @Test
    void directRowsEqualTheGeneralPath() {
        Map<String, Integer> coverage = new TreeMap<>();
        Random random = new Random(44L);
        for (int flowNumber = 0; flowNumber < 5; flowNumber++) {
            FlowBuilder b =
                    Flow.builder("flow", TargetType.BITEMPORAL)
                            .column("id", INT)
                            .column("v1", STRING)
                            .column("v2", STRING)
                            .keys("id")
                            .sequenceBy(INT)
                            .systemSequenceBy(INT);
            if ((flowNumber & 1) != 0) {
                b.trackHistoryOn(List.of("v1")); // v2 changes rewrite rows in place
            }
            if (flowNumber == 2 || flowNumber == 3) {
                b.ignoreNullUpdates();
            } else if (flowNumber == 4) {
                b.columnsToUpdate();
            }
            Flow flow = b.build();
            for (int run = 0; run < 600; run++) {
                compare(flow, events(random, flowNumber == 4), coverage);
            }
        }
        System.out.println("BitemporalAppendedTest coverage: " + coverage);
        assertThat(coverage)
                .containsKeys(
                        "direct.opened",
                        "direct.closed_at_t",
                        "direct.replaced_at_t",
                        "direct.rewritten",
                        "direct.believed_row_closed",
                        "direct.delete_closing_a_version",
                        "direct.one_put_where_the_general_path_makes_two",
                        "general");
    }

    private static List<ChangeEvent> events(Random random, boolean columnsToUpdate) {
        List<ChangeEvent> events = new ArrayList<>();
        int n = 1 + random.nextInt(16);
        int sys = 1;
        for (int i = 0; i < n; i++) {
            // mostly ascending system sequences, with ties and a few late ones
            int r = random.nextInt(10);
            int s = r < 6 ? ++sys : r < 8 ? sys : Math.max(1, sys - 1 - random.nextInt(3));
            boolean delete = random.nextInt(6) == 0;
            Object[] row = {
                1 + random.nextInt(2),
                VALUES[random.nextInt(VALUES.length)],
                VALUES[random.nextInt(VALUES.length)]
            };
            boolean[] written =
                    columnsToUpdate && random.nextBoolean()
                            ? new boolean[] {true, random.nextBoolean(), random.nextBoolean()}
                            : null;
            events.add(
                    new ChangeEvent(
                            delete ? Op.DELETE : Op.UPSERT,
                            row,
                            CODEC.encode(1 + random.nextInt(8)),
                            CODEC.encode(s),
                            written));
        }
        return events;
    }

    private static void compare(
            Flow flow, List<ChangeEvent> events, Map<String, Integer> coverage) {
        BitemporalEngine direct = new BitemporalEngine(flow, EngineCounters.NONE);
        BitemporalEngine general =
                BitemporalEngine.withVersionChangesOnly(flow, EngineCounters.NONE);
        Map<Integer, CountingStore> directStores = new TreeMap<>();
        Map<Integer, CountingStore> generalStores = new TreeMap<>();
        for (ChangeEvent event : events) {
            Integer key = (Integer) event.row()[0];
            CountingStore directStore = directStores.computeIfAbsent(key, k -> new CountingStore());
            CountingStore generalStore =
                    generalStores.computeIfAbsent(key, k -> new CountingStore());
            boolean isDirect = takesTheDirectPath(directStore, event);
            List<TargetChange> directOut = new ArrayList<>();
            List<TargetChange> generalOut = new ArrayList<>();
            directStore.puts = 0;
            generalStore.puts = 0;
            direct.apply(directStore, event, directOut);
            general.apply(generalStore, event, generalOut);
            String context = "after " + event + " of " + events;
            assertThat(directOut).as(context).hasSameSizeAs(generalOut);
            for (int i = 0; i < directOut.size(); i++) {
                TargetChange d = directOut.get(i);
                TargetChange g = generalOut.get(i);
                assertThat(d.kind()).as(context).isEqualTo(g.kind());
                assertThat(
                                Arrays.deepEquals(
                                        new Object[] {d.before(), d.after()},
                                        new Object[] {g.before(), g.after()}))
                        .as(context + ": " + render(directOut) + " against " + render(generalOut))
                        .isTrue();
            }
            assertThat(render(directStore.head()))
                    .as(context)
                    .isEqualTo(render(generalStore.head()));
            assertThat(entries(directStore)).as(context).isEqualTo(entries(generalStore));
            boolean closed =
                    directOut.stream()
                            .map(BitemporalAppendedTest::shape)
                            .anyMatch(s -> s.equals("closed_at_t") || s.equals("replaced_at_t"));
            if (isDirect && closed) {
                assertThat(directStore.puts).as(context).isEqualTo(1);
                assertThat(generalStore.puts).as(context).isEqualTo(2);
                coverage.merge("direct.one_put_where_the_general_path_makes_two", 1, Integer::sum);
            }
            if (isDirect) {
                for (TargetChange c : directOut) {
                    coverage.merge("direct." + shape(c), 1, Integer::sum);
                }
                if (event.op() == Op.DELETE && !directOut.isEmpty()) {
                    coverage.merge("direct.delete_closing_a_version", 1, Integer::sum);
                }
            } else {
                coverage.merge("general", 1, Integer::sum);
            }
        }
    }

    /** The direct path's condition, restated: after the newest sequence, in system order. */
    private static boolean takesTheDirectPath(BitemporalStore store, ChangeEvent event) {
        BitemporalHead head = store.head();
        TimelineEntry top = store.belief().head();
        if (top != null && SequenceCodec.compare(event.sequence(), top.sequence()) <= 0) {
            return false;
        }
        if (head == null) {
            return true;
        }
        int system = SequenceCodec.compare(event.systemSequence(), head.latestSystemSequence());
        return system > 0
                || (system == 0
                        && (top == null
                                || top.state() == null
                                || Arrays.equals(head.openSystemStart(), event.systemSequence())));
    }

    /** The row transition a change is (rows: id, v1, v2, start, end, system start, system end). */
    private static String shape(TargetChange c) {
        if (c.kind() == TargetChange.Kind.INSERT) {
            return c.after()[4] == null ? "opened" : "closed_at_t";
        }
        if (c.kind() == TargetChange.Kind.DELETE) {
            return "removed";
        }
        Object[] before = c.before();
        Object[] after = c.after();
        if (after[6] != null) {
            return "believed_row_closed"; // at t (the closed version's row follows: an insert)
        }
        if (after[4] != null) {
            return "replaced_at_t";
        }
        return "rewritten";
    }

    private static List<String> render(List<TargetChange> changes) {
        List<String> out = new ArrayList<>();
        for (TargetChange c : changes) {
            out.add(
                    c.kind()
                            + " "
                            + (c.before() == null ? "-" : Arrays.deepToString(c.before()))
                            + " -> "
                            + (c.after() == null ? "-" : Arrays.deepToString(c.after())));
        }
        return out;
    }

    private static String render(BitemporalHead head) {
        return head == null
                ? "-"
                : Arrays.toString(head.latestSystemSequence())
                        + " open since "
                        + Arrays.toString(head.openSystemStart())
                        + " floors "
                        + Arrays.toString(head.floorSequence())
                        + " "
                        + Arrays.toString(head.floorSystemSequence());
    }

    /** An in-memory store that counts the entries put into its belief. */
    private static final class CountingStore implements BitemporalStore {
        private final InMemoryBitemporalStore store = new InMemoryBitemporalStore();
        int puts;

        private final Timeline belief =
                new Timeline() {
                    @Override
                    public TimelineEntry head() {
                        return store.belief().head();
                    }

                    @Override
                    public Iterator<TimelineEntry> newestFirst() {
                        return store.belief().newestFirst();
                    }

                    @Override
                    public void put(TimelineEntry entry) {
                        puts++;
                        store.belief().put(entry);
                    }

                    @Override
                    public void setHead(TimelineEntry entry) {
                        store.belief().setHead(entry);
                    }
                };

        @Override
        public Timeline belief() {
            return belief;
        }

        @Override
        public BitemporalHead head() {
            return store.head();
        }

        @Override
        public void setHead(BitemporalHead h) {
            store.setHead(h);
        }

        @Override
        public void removeBefore(byte[] floor) {
            store.removeBefore(floor);
        }

        @Override
        public BitemporalSnapshot snapshot() {
            return store.snapshot();
        }

        @Override
        public void setSnapshot(BitemporalSnapshot s) {
            store.setSnapshot(s);
        }
    }

    /** Each belief entry's sequence, state, version start and system start, newest first. */
    private static List<String> entries(BitemporalStore store) {
        List<String> out = new ArrayList<>();
        for (Iterator<TimelineEntry> it = store.belief().newestFirst(); it.hasNext(); ) {
            TimelineEntry e = it.next();
            out.add(
                    Arrays.toString(e.sequence())
                            + " "
                            + Arrays.deepToString(e.state())
                            + " from "
                            + Arrays.toString(e.versionStart())
                            + " believed since "
                            + Arrays.toString(e.believedSince()));
        }
        return out;
    }
}
