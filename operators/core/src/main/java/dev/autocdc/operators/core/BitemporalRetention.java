package dev.autocdc.operators.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;

/**
 * semantics §7 history retention for a bitemporal key, beside {@link HistoryRetention} (SCD type
 * 2): which part of the key's history may leave state, and what must be kept so that the rest still
 * answers every question. Rows believed and closed longer ago than the retention are already in the
 * sink. What stays is everything after a system floor T and a business floor F, and a {@link
 * BitemporalSnapshot} of the belief at T from F on; {@link BitemporalReplay} starts from that
 * snapshot.
 */
public final class BitemporalRetention {
    private final Flow flow;
    private final Fold fold;
    private final EventOrder order;

    public BitemporalRetention(Flow flow) {
        this.flow = flow;
        this.fold = new Fold(flow);
        this.order = new EventOrder(flow);
    }

    /**
     * Drops the history that is frozen and older than {@code cutoff}, keeping a {@link
     * BitemporalSnapshot}. The system floor T becomes the newest system sequence whose events (and
     * all before it) were written at or before the cutoff; the business floor F the newest version
     * boundary of the belief at T that no event recorded after T precedes. Entries before F leave
     * the store. Returns whether anything was dropped.
     */
    public boolean compact(BitemporalStore store, long cutoff) {
        BitemporalSnapshot old = store.snapshot();
        List<ChangeEvent> events = new ArrayList<>();
        List<Long> written = new ArrayList<>();
        for (Iterator<TimelineEntry> it = store.belief().newestFirst(); it.hasNext(); ) {
            TimelineEntry entry = it.next();
            for (ChangeEvent e : entry.events()) {
                events.add(e);
                written.add(entry.writtenAt());
            }
        }
        byte[] floorSystem = floorSystem(events, written, cutoff);
        if (floorSystem == null
                || (old != null
                        && SequenceCodec.compare(floorSystem, old.floorSystemSequence()) <= 0)) {
            return false;
        }
        byte[] firstAfter = null; // the smallest business sequence recorded after T
        List<ChangeEvent> upToT = new ArrayList<>();
        for (ChangeEvent e : events) {
            if (SequenceCodec.compare(e.systemSequence(), floorSystem) <= 0) {
                upToT.add(e);
            } else if (firstAfter == null || SequenceCodec.compare(e.sequence(), firstAfter) < 0) {
                firstAfter = e.sequence();
            }
        }
        BitemporalReplay atT = new BitemporalReplay(flow, fold, order, old);
        atT.run(upToT);
        // F: the newest boundary of the belief at T before firstAfter (and after the old floor)
        byte[] floor = null;
        Object[] seed = null;
        Object[] previousState = null;
        boolean hasPrevious = false;
        for (TimelineEntry entry : atT.timeline().ascending()) {
            if (entry.sequence().length == 0) {
                previousState = entry.state(); // the old snapshot's seed
                continue;
            }
            if (firstAfter != null && SequenceCodec.compare(entry.sequence(), firstAfter) >= 0) {
                break;
            }
            if (hasPrevious
                    && entry.isVersionBoundary()
                    && (old == null
                            || SequenceCodec.compare(entry.sequence(), old.floorSequence()) > 0)) {
                floor = entry.sequence();
                seed = previousState;
            }
            previousState = entry.state();
            hasPrevious = true;
        }
        if (floor == null) {
            return false;
        }
        List<BitemporalRow> believed = new ArrayList<>();
        for (BitemporalRow row : atT.believed().values()) {
            if (SequenceCodec.compare(row.version().start(), floor) >= 0) {
                believed.add(row);
            }
        }
        // the versions of the belief that start before F end at or before it: they leave with their
        // entries
        store.removeBefore(floor);
        store.setSnapshot(new BitemporalSnapshot(floor, floorSystem, seed, believed));
        BitemporalHead head = store.head();
        store.setHead(head.withFloors(floor, floorSystem));
        return true;
    }

    /**
     * The system floor T of {@link #compact}, or null when even the oldest system sequence has an
     * event written after the cutoff; {@code written} holds when each of {@code events} was
     * written.
     */
    private static byte[] floorSystem(List<ChangeEvent> events, List<Long> written, long cutoff) {
        Integer[] bySystem = new Integer[events.size()];
        for (int i = 0; i < bySystem.length; i++) {
            bySystem[i] = i;
        }
        Arrays.sort(
                bySystem,
                (a, b) ->
                        SequenceCodec.compare(
                                events.get(a).systemSequence(), events.get(b).systemSequence()));
        byte[] floorSystem = null;
        for (int i = 0; i < bySystem.length; ) {
            byte[] t = events.get(bySystem[i]).systemSequence();
            boolean allOld = true;
            int j = i;
            while (j < bySystem.length
                    && Arrays.equals(events.get(bySystem[j]).systemSequence(), t)) {
                allOld &= written.get(bySystem[j]) <= cutoff;
                j++;
            }
            if (!allOld) {
                break;
            }
            floorSystem = t;
            i = j;
        }
        return floorSystem;
    }
}
