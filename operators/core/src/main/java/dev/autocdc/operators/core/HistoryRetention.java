package dev.autocdc.operators.core;

import java.util.List;

/**
 * semantics §7 history retention for SCD type 2: which part of a key's history may leave state.
 * Versions that closed longer ago than the retention are already in the sink; dropping the entries
 * before a version boundary drops exactly those versions. The boundary kept (the new "floor") is
 * the newest one such that every entry up to it was written before the cutoff (a late event may
 * have rewritten an old entry recently: then that part is not dropped yet). Events at or before the
 * floor would change dropped history: the operator sends them to the late-events output instead of
 * applying them.
 */
public final class HistoryRetention {

    private HistoryRetention() {}

    /**
     * The new floor for entries given in ascending sequence order, or null when nothing can be
     * dropped. Entries before the returned sequence may be removed; the entry at it must be kept.
     */
    public static byte[] floor(List<TimelineEntry> ascending, long cutoff) {
        byte[] floor = null;
        long newestWrite = Long.MIN_VALUE;
        for (int i = 0; i < ascending.size(); i++) {
            TimelineEntry e = ascending.get(i);
            newestWrite = Math.max(newestWrite, e.writtenAt());
            if (newestWrite > cutoff) {
                break;
            }
            if (i > 0 && e.isVersionBoundary()) {
                floor = e.sequence();
            }
        }
        return floor;
    }

    /** The earliest write time of an entry that is not yet old enough, or -1 when none is left. */
    public static long nextDue(List<TimelineEntry> ascending, long cutoff) {
        long next = -1;
        for (TimelineEntry e : ascending) {
            if (e.writtenAt() > cutoff && (next < 0 || e.writtenAt() < next)) {
                next = e.writtenAt();
            }
        }
        return next;
    }
}
