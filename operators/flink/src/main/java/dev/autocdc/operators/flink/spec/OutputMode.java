package dev.autocdc.operators.flink.spec;

/** How updates reach the sink (semantics §8). */
public enum OutputMode {
    /** -U with the exact retracted row, then +U: any sink. */
    RETRACT,
    /**
     * +U only (and -D): for upsert sinks keyed by the target's primary key, such as upsert-kafka.
     */
    UPSERT
}
