package dev.autocdc.operators.core;

/**
 * What an engine has seen, for the metrics of SPEC §8: events that arrived behind their key's newest
 * sequence (late; bitemporal: or behind its newest system sequence), conflicting ties (an event at the same sequence, and system sequence, as another
 * of the key's events, but not a duplicate of it; counted against the events the key still holds),
 * and exact duplicates (which have no effect).
 */
public final class EngineCounters {
    long late;
    long conflictingTies;
    long duplicates;

    public long late() {
        return late;
    }

    public long conflictingTies() {
        return conflictingTies;
    }

    public long duplicates() {
        return duplicates;
    }
}
