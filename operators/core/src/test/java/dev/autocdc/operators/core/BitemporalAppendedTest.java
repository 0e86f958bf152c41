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
 * entries: random events of one key, mostly in system order, fed to an engine of each kind.
 * Coverage counters prove each row transition took the direct path.
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
        for (int flowNumber = 0; flowNumber < 4; flowNumber++) {
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
            if ((flowNumber & 2) != 0) {
                b.ignoreNullUpdates();
            }
            Flow flow = b.build();
            for (int run = 0; run < 600; run++) {
                compare(flow, events(random), coverage);
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
                        "general");
    }

    private static List<ChangeEvent> events(Random random) {
        List<ChangeEvent> events = new ArrayList<>();
        int n = 1 + random.nextInt(10);
        int sys = 1;
        for (int i = 0; i < n; i++) {
            // mostly ascending system sequences, with ties and a few late ones
            int r = random.nextInt(10);
            int s = r < 6 ? ++sys : r < 8 ? sys : Math.max(1, sys - 1 - random.nextInt(3));
            boolean delete = random.nextInt(6) == 0;
            Object[] row = {
                1, VALUES[random.nextInt(VALUES.length)], VALUES[random.nextInt(VALUES.length)]
            };
            events.add(
                    new ChangeEvent(
                            delete ? Op.DELETE : Op.UPSERT,
                            row,
                            CODEC.encode(1 + random.nextInt(8)),
                            CODEC.encode(s),
                            null));
        }
        return events;
    }

    private static void compare(
            Flow flow, List<ChangeEvent> events, Map<String, Integer> coverage) {
        BitemporalEngine direct = new BitemporalEngine(flow, EngineCounters.NONE, true);
        BitemporalEngine general = new BitemporalEngine(flow, EngineCounters.NONE, false);
        InMemoryBitemporalStore directStore = new InMemoryBitemporalStore();
        InMemoryBitemporalStore generalStore = new InMemoryBitemporalStore();
        for (ChangeEvent event : events) {
            boolean isDirect = takesTheDirectPath(directStore, event);
            List<TargetChange> directOut = new ArrayList<>();
            List<TargetChange> generalOut = new ArrayList<>();
            direct.apply(directStore, event, directOut);
            general.apply(generalStore, event, generalOut);
            String context = "after " + event + " of " + events;
            assertThat(render(directOut)).as(context).isEqualTo(render(generalOut));
            assertThat(render(directStore.head()))
                    .as(context)
                    .isEqualTo(render(generalStore.head()));
            assertThat(entries(directStore)).as(context).isEqualTo(entries(generalStore));
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
                        + Arrays.toString(head.openSystemStart());
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
