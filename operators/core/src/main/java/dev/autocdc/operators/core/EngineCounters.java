package dev.autocdc.operators.core;

/**
 * Where an engine counts what it sees, for the metrics of semantics §8. The engine is given one
 * when it is built and calls it as it applies events:
 *
 * <ul>
 *   <li>{@link #countLate()}: an event arrived behind its key's newest sequence (bitemporal: or
 *       behind its newest system sequence);
 *   <li>{@link #countConflictingTie()}: an event at the same sequence (and system sequence) as
 *       another of the key's events, but not a duplicate of it; counted against the events the key
 *       still holds;
 *   <li>{@link #countDuplicate()}: an exact duplicate, which has no effect.
 * </ul>
 *
 * The Flink operator backs it with metric counters; {@link #NONE} counts nothing.
 */
public interface EngineCounters {

    /**
     * Counts nothing: for replays and for applications that are not events (a truncate's floor).
     */
    EngineCounters NONE =
            new EngineCounters() {
                @Override
                public void countLate() {}

                @Override
                public void countConflictingTie() {}

                @Override
                public void countDuplicate() {}
            };

    void countLate();

    void countConflictingTie();

    void countDuplicate();
}
