package dev.autocdc.operators.core;

/** What a change event does to its key (semantics §1). */
public enum Op {
    /** Insert or update (the event's condition for delete and truncate was false or null). */
    UPSERT,
    /** APPLY AS DELETE WHEN: the key is absent from the event's sequence on. */
    DELETE,
    /** APPLY AS TRUNCATE WHEN (SCD type 1): a delete at the event's sequence for every key. */
    TRUNCATE;

    /** Rank in the tie order of semantics §6: upserts before deletes (a truncate is a delete). */
    int tieRank() {
        return this == UPSERT ? 0 : 1;
    }
}
