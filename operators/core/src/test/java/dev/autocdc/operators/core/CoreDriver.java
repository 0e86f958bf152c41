package dev.autocdc.operators.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Runs the core engines over a stream of many keys' events with in-memory state, the way the Flink
 * operator does with keyed state (truncate included: applied to every present key and kept as a
 * floor for keys seen later). For tests.
 */
public final class CoreDriver {
    private final Flow flow;
    private final Scd1Engine scd1;
    private final Scd2Engine scd2;
    private final BitemporalEngine bitemporal;
    private final Map<List<Object>, List<ChangeEvent>> scd1State = new HashMap<>();
    private final Map<List<Object>, InMemoryTimeline> timelines = new HashMap<>();
    private final Map<List<Object>, InMemoryBitemporalStore> bitemporalStores = new HashMap<>();
    private ChangeEvent truncateFloor;

    public CoreDriver(Flow flow) {
        this.flow = flow;
        this.scd1 = new Scd1Engine(flow, EngineCounters.NONE);
        this.scd2 = new Scd2Engine(flow, EngineCounters.NONE);
        this.bitemporal = new BitemporalEngine(flow, EngineCounters.NONE);
    }

    public List<TargetChange> apply(ChangeEvent event) {
        List<TargetChange> out = new ArrayList<>();
        if (event.op() == Op.TRUNCATE) {
            EventOrder order = new EventOrder(flow);
            if (truncateFloor == null || order.compare(event, truncateFloor) > 0) {
                truncateFloor = event;
            }
            for (Map.Entry<List<Object>, List<ChangeEvent>> e : scd1State.entrySet()) {
                e.setValue(scd1.apply(e.getValue(), event, out));
            }
            return out;
        }
        List<Object> key = key(event.row());
        switch (flow.targetType()) {
            case SCD1:
                {
                    List<ChangeEvent> state = scd1State.get(key);
                    if (truncateFloor != null) {
                        state = scd1.apply(state, truncateFloor, out);
                    }
                    scd1State.put(key, scd1.apply(state, event, out));
                    break;
                }
            case SCD2:
                scd2.apply(timelines.computeIfAbsent(key, k -> new InMemoryTimeline()), event, out);
                break;
            default:
                bitemporal.apply(
                        bitemporalStores.computeIfAbsent(key, k -> new InMemoryBitemporalStore()),
                        event,
                        out);
        }
        return out;
    }

    /**
     * Checks every bitemporal key's bookkeeping against its table computed from scratch: the entry
     * where a closed version ends records the system start of that version's believed row, no other
     * entry records one, and the head holds the open version's.
     */
    public void checkBitemporalBookkeeping() {
        for (Map.Entry<List<Object>, InMemoryBitemporalStore> e : bitemporalStores.entrySet()) {
            InMemoryBitemporalStore store = e.getValue();
            List<ChangeEvent> events = new ArrayList<>();
            Map<String, String> recorded = new TreeMap<>();
            for (Iterator<TimelineEntry> it = store.belief().newestFirst(); it.hasNext(); ) {
                TimelineEntry entry = it.next();
                events.addAll(entry.events());
                if (entry.believedSince() != null) {
                    recorded.put(
                            Arrays.toString(entry.sequence()),
                            Arrays.toString(entry.believedSince()));
                }
            }
            Map<String, String> expected = new TreeMap<>();
            String expectedOpen = Arrays.toString((byte[]) null);
            for (BitemporalRow row : bitemporal.table(events).values()) {
                if (row.systemEnd() != null) {
                    continue;
                }
                if (row.version().isOpen()) {
                    expectedOpen = Arrays.toString(row.systemStart());
                } else {
                    expected.put(
                            Arrays.toString(row.version().end()),
                            Arrays.toString(row.systemStart()));
                }
            }
            if (!expected.equals(recorded)) {
                throw new AssertionError(
                        "key "
                                + e.getKey()
                                + ": system starts recorded "
                                + recorded
                                + ", expected "
                                + expected);
            }
            String open = Arrays.toString(store.head().openSystemStart());
            if (!expectedOpen.equals(open)) {
                throw new AssertionError(
                        "key "
                                + e.getKey()
                                + ": open system start "
                                + open
                                + ", expected "
                                + expectedOpen);
            }
        }
    }

    public InMemoryTimeline timeline(List<Object> key) {
        return timelines.get(key);
    }

    private List<Object> key(Object[] row) {
        List<Object> k = new ArrayList<>();
        for (int i : flow.keyIndexes()) {
            k.add(row[i]);
        }
        return k;
    }

    /** The primary key positions of the target rows (semantics §3-5). */
    public int[] primaryKey() {
        int[] keys = flow.keyIndexes();
        int n = flow.columnCount();
        int extra =
                flow.targetType() == TargetType.SCD1
                        ? 0
                        : flow.targetType() == TargetType.SCD2 ? 1 : 2;
        int[] pk = Arrays.copyOf(keys, keys.length + extra);
        if (extra >= 1) {
            pk[keys.length] = n;
        }
        if (extra == 2) {
            pk[keys.length + 1] = n + 2;
        }
        return pk;
    }
}
