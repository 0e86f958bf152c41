package dev.autocdc.operators.flink.runtime;

import java.util.List;
import java.util.Objects;

/**
 * An event the engine could not apply (semantics §11), with what is needed to find and replay it. A
 * Flink POJO: public fields, a no-argument constructor.
 */
public class DeadLetter {
    /** Reason codes. */
    public static final String NULL_KEY = "NULL_KEY";

    public static final String NULL_SEQUENCE = "NULL_SEQUENCE";
    public static final String NULL_SYSTEM_SEQUENCE = "NULL_SYSTEM_SEQUENCE";
    public static final String BAD_COLUMNS_TO_UPDATE = "BAD_COLUMNS_TO_UPDATE";
    public static final String BAD_VALUE = "BAD_VALUE";
    public static final String UNSUPPORTED_TRUNCATE = "UNSUPPORTED_TRUNCATE";

    /** A CAST in a clause (APPLY AS DELETE WHEN ...) could not convert the record's value. */
    public static final String BAD_CAST = "BAD_CAST";

    /** The source's format could not parse the record; {@link #raw} holds it as received. */
    public static final String PARSE_ERROR = "PARSE_ERROR";

    /** A blank or whitespace-only record (a text format's empty line). */
    public static final String BLANK_RECORD = "BLANK_RECORD";

    /** A number its column's type does not hold exactly (a fraction for an INT, ...). */
    public static final String INEXACT_NUMBER = "INEXACT_NUMBER";

    /** A JSON record with a field written twice in one object: which value counts is ambiguous. */
    public static final String DUPLICATE_FIELD = "DUPLICATE_FIELD";

    /** Late-events output: the event would change history dropped by the history retention. */
    public static final String BEFORE_RETAINED_HISTORY = "BEFORE_RETAINED_HISTORY";

    /**
     * Late-events reason: an erasure of a key whose older history had left state (a history
     * retention, or its tombstone expired); those rows are in the target only.
     */
    public static final String ERASED_BEYOND_STATE = "ERASED_BEYOND_STATE";

    /**
     * Late events (semantics §10): a row of a snapshot at or below one already complete, on a
     * source that broke the per-split order; nothing else changes.
     */
    public static final String SNAPSHOT_OUT_OF_ORDER = "snapshot_out_of_order";

    /**
     * Late events: a row of a snapshot the safety valve holds (it has too few rows against the last
     * complete snapshot); the row also stays waiting, for a restore with a larger threshold.
     */
    public static final String SNAPSHOT_HELD = "snapshot_held";

    /**
     * semantics §10: a key with different rows in one snapshot; every such row is a dead letter.
     */
    public static final String DUPLICATE_KEY_IN_SNAPSHOT = "duplicate_key_in_snapshot";

    /** A row of kind DELETE or an unreadable end row in a flow from snapshots. */
    public static final String NOT_A_SNAPSHOT_ROW = "NOT_A_SNAPSHOT_ROW";

    /** The flow's name. */
    public String flow;

    /** The source (table or topic) the event came from, when known. */
    public String source;

    /** One of the reason codes above. */
    public String reason;

    /** What was wrong, for a person. */
    public String message;

    /**
     * The event as the engine received it (JSON text), or the raw bytes' text when parsing failed.
     */
    public String payload;

    /** Kafka coordinates, when the event came from Kafka and they are known; else null. */
    public String topic;

    public Integer partition;
    public Long offset;

    /** The record's bytes as received, when the format could not parse them; else null. */
    public byte[] raw;

    public DeadLetter() {}

    public DeadLetter(String flow, String reason, String message, String payload) {
        this.flow = flow;
        this.reason = reason;
        this.message = message;
        this.payload = payload;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof DeadLetter)) {
            return false;
        }
        DeadLetter d = (DeadLetter) o;
        return Objects.equals(flow, d.flow)
                && Objects.equals(source, d.source)
                && Objects.equals(reason, d.reason)
                && Objects.equals(message, d.message)
                && Objects.equals(payload, d.payload)
                && Objects.equals(topic, d.topic)
                && Objects.equals(partition, d.partition)
                && Objects.equals(offset, d.offset);
    }

    @Override
    public int hashCode() {
        return Objects.hash(flow, reason, message, payload);
    }

    /**
     * One JSON object, the columns of a dead-letter table: flow, source, reason, message, payload
     * (a string), topic, partition, offset, raw (base64).
     */
    public String toJson() {
        return JsonRows.object(
                List.of(
                        "flow",
                        "source",
                        "reason",
                        "message",
                        "payload",
                        "topic",
                        "partition",
                        "offset",
                        "raw"),
                new Object[] {
                    flow, source, reason, message, payload, topic, partition, offset, raw
                });
    }

    @Override
    public String toString() {
        return "DeadLetter{" + flow + ", " + reason + ": " + message + ", " + payload + "}";
    }
}
