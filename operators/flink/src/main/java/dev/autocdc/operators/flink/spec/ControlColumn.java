package dev.autocdc.operators.flink.spec;

import java.util.Collection;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;

/**
 * The control columns of the engine's input, each described once: its name, the clause it carries,
 * the types it takes, and the flows it is allowed in. The input's fields are the target's base
 * columns (keys and values, in target order, after COLUMNS) followed by control columns, found by
 * name: {@link #columnName()}, whose prefix {@code __} a planner may replace by another ({@link
 * EngineSpec.Builder#controlPrefix}, chosen with {@link #prefixAvoiding}) so that no source column
 * is ever taken for one (semantics §11). {@link EngineSpec.Builder#build} finds and checks them all
 * in one loop over this enum. The job's planner produces this projection from the flow's SQL; a
 * DataStream user produces it by hand.
 */
public enum ControlColumn {
    /** Required: the SEQUENCE BY value (a ROW for {@code STRUCT(...)}). */
    SEQUENCE("seq", "SEQUENCE BY", Values.ANY, Flows.ALL),

    /** Bitemporal only, required there: the SYSTEM SEQUENCE BY value. */
    SYSTEM_SEQUENCE("sys", "SYSTEM SEQUENCE BY", Values.ANY, Flows.ALL),

    /**
     * Optional: APPLY AS DELETE WHEN; null counts as false. A row of kind DELETE (from a changelog
     * source) is a delete too, and rows of kind UPDATE_BEFORE are skipped.
     */
    DELETE("delete", "APPLY AS DELETE WHEN", Values.BOOLEAN, Flows.STREAM),

    /** Optional, SCD type 1 only: APPLY AS TRUNCATE WHEN. */
    TRUNCATE("truncate", "APPLY AS TRUNCATE WHEN", Values.BOOLEAN, Flows.STREAM),

    /**
     * Required with COLUMNS TO UPDATE: ARRAY&lt;STRING&gt; or a STRING of comma-separated names.
     */
    COLUMNS_TO_UPDATE("columns_to_update", "COLUMNS TO UPDATE", Values.NAMES, Flows.STREAM),

    /**
     * Optional, flows from snapshots only: APPLY AS SNAPSHOT END WHEN; a row where it holds is no
     * data but ends the snapshot of its sequences on its split (semantics §10). Null counts as
     * false.
     */
    SNAPSHOT_END("snapshot_end", "APPLY AS SNAPSHOT END WHEN", Values.BOOLEAN, Flows.SNAPSHOT),

    /**
     * Optional, flows from a stream only: the row erases its key (only its key columns are read):
     * every row of the key is deleted and its state cleared. Null counts as false.
     */
    ERASE("erase", "erasures", Values.BOOLEAN, Flows.STREAM),

    /**
     * Optional STRING: the clause whose CAST could not convert the record's value (the row is a
     * dead letter); null when every CAST converted.
     */
    CAST_FAILED("cast_failed", "CAST", Values.ANY, Flows.ALL),

    /**
     * Optional STRING: the row was refused before the keyed exchange, where its dead letter went
     * out with the record's bytes (the column says why, for reading only). A planner lets such a
     * row on only in a flow from snapshots, where it holds its key at its snapshot (semantics §10).
     * Null for a row that passed.
     */
    REFUSED("refused", "a refused record", Values.ANY, Flows.ALL),

    /** Optional STRING: the Kafka topic a dead letter came from. */
    TOPIC("topic", "topic", Values.ANY, Flows.ALL),

    /** Optional INT: the Kafka partition a dead letter came from. */
    PARTITION("partition", "partition", Values.ANY, Flows.ALL),

    /** Optional BIGINT: the Kafka offset a dead letter came from. */
    OFFSET("offset", "offset", Values.ANY, Flows.ALL),

    /**
     * Optional ROW: the source's columns that are not base columns (left out by COLUMNS), carried
     * only for dead-letter payloads.
     */
    RECORD("record", "record", Values.ANY, Flows.ALL);

    /** The prefix of the control columns' names unless a planner chooses another. */
    public static final String DEFAULT_PREFIX = "__";

    /** The types a control column takes. */
    private enum Values {
        ANY,
        BOOLEAN,
        /** ARRAY&lt;STRING&gt; or STRING. */
        NAMES
    }

    /** The flows a control column is allowed in. */
    private enum Flows {
        ALL,
        STREAM,
        SNAPSHOT
    }

    private final String suffix;
    private final String clause;
    private final Values values;
    private final Flows flows;

    ControlColumn(String suffix, String clause, Values values, Flows flows) {
        this.suffix = suffix;
        this.clause = clause;
        this.values = values;
        this.flows = flows;
    }

    /** The name under the default prefix: {@code __seq} for {@link #SEQUENCE}. */
    public String columnName() {
        return columnName(DEFAULT_PREFIX);
    }

    /** The name under {@code prefix}: {@code __autocdc_seq} for {@link #SEQUENCE}. */
    public String columnName(String prefix) {
        return prefix + suffix;
    }

    /**
     * A column of a planner's own, named as the control columns are under {@code prefix}: {@code
     * withPrefix("__autocdc_", "__raw")} is {@code __autocdc_raw}.
     *
     * @param defaultName the name under {@link #DEFAULT_PREFIX}
     */
    public static String withPrefix(String prefix, String defaultName) {
        return prefix + defaultName.substring(DEFAULT_PREFIX.length());
    }

    /** The clause the column carries, as the flow language spells it. */
    public String clause() {
        return clause;
    }

    /**
     * Why the column cannot be in a flow's input, or null when it can: its type, or the kind of
     * flow ({@code snapshot}: a flow from snapshots).
     */
    String refusal(LogicalType type, boolean snapshot) {
        if (flows == Flows.STREAM && snapshot) {
            return notInSnapshots(clause);
        }
        if (flows == Flows.SNAPSHOT && !snapshot) {
            return "end rows belong to a flow from snapshots (FROM SNAPSHOT)";
        }
        LogicalTypeRoot root = type.getTypeRoot();
        if (values == Values.BOOLEAN && root != LogicalTypeRoot.BOOLEAN) {
            return "the condition must be a BOOLEAN expression, not " + type;
        }
        if (values == Values.NAMES
                && !isString(root)
                && !(root == LogicalTypeRoot.ARRAY
                        && isString(type.getChildren().get(0).getTypeRoot()))) {
            return "the column must be ARRAY<STRING> or a STRING of comma-separated names, not "
                    + type;
        }
        return null;
    }

    /** Why a flow from snapshots refuses {@code clause} (semantics §10). */
    static String notInSnapshots(String clause) {
        return "a flow from snapshots cannot have "
                + clause
                + ": a key missing from a complete snapshot is deleted, and each snapshot row is"
                + " the whole row";
    }

    private static boolean isString(LogicalTypeRoot root) {
        return root == LogicalTypeRoot.VARCHAR || root == LogicalTypeRoot.CHAR;
    }

    /**
     * The first of {@code __}, {@code __autocdc_}, {@code __autocdc1_}, ... under which no control
     * column name equals one of {@code columns} (ignoring case): the prefix a planner gives its
     * control columns so that every source column stays data.
     */
    public static String prefixAvoiding(Collection<String> columns) {
        Set<String> taken = new HashSet<>();
        for (String c : columns) {
            taken.add(c.toLowerCase(Locale.ROOT));
        }
        for (int i = 0; ; i++) {
            String prefix = i == 0 ? DEFAULT_PREFIX : i == 1 ? "__autocdc_" : "__autocdc" + i + "_";
            boolean free = true;
            for (ControlColumn c : values()) {
                free &= !taken.contains(c.columnName(prefix).toLowerCase(Locale.ROOT));
            }
            if (free) {
                return prefix;
            }
        }
    }
}
