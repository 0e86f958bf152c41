package dev.autocdc.operators.flink.spec;

import dev.autocdc.operators.core.Flow;
import dev.autocdc.operators.core.FlowBuilder;
import dev.autocdc.operators.core.FlowDefinitionException;
import dev.autocdc.operators.core.TargetType;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;

/**
 * Everything the AUTO CDC operator needs to know: the {@link Flow}, how its input rows are laid
 * out, the output mode and the retentions.
 *
 * <p><b>The input contract.</b> The operator consumes {@code RowData} whose fields are the target's
 * base columns (keys and values, in target order, after COLUMNS) followed by control columns, which
 * are found by name: the names below, whose prefix {@code __} a planner may replace by another
 * ({@link Builder#controlPrefix}, chosen with {@link #controlPrefixAvoiding}) so that no source
 * column is ever taken for one (semantics §11):
 *
 * <ul>
 *   <li>{@value #SEQUENCE} (required): the SEQUENCE BY value (a ROW for {@code STRUCT(...)});
 *   <li>{@value #SYSTEM_SEQUENCE} (bitemporal only, required there): the SYSTEM SEQUENCE BY value;
 *   <li>{@value #DELETE} (optional BOOLEAN): APPLY AS DELETE WHEN; null counts as false. A row of
 *       kind DELETE (from a changelog source) is a delete too, and rows of kind UPDATE_BEFORE are
 *       skipped;
 *   <li>{@value #TRUNCATE} (optional BOOLEAN, SCD type 1 only): APPLY AS TRUNCATE WHEN;
 *   <li>{@value #COLUMNS_TO_UPDATE} (ARRAY&lt;STRING&gt; or STRING of comma-separated names,
 *       required with COLUMNS TO UPDATE);
 *   <li>{@value #ERASE} (optional BOOLEAN, a flow from a stream only): the row erases its key (only
 *       its key columns are read): every row of the key is deleted and its state cleared; null
 *       counts as false;
 *   <li>{@value #SNAPSHOT_END} (optional BOOLEAN, a flow from snapshots only, {@link
 *       Builder#fromSnapshot}): APPLY AS SNAPSHOT END WHEN;
 *   <li>{@value #CAST_FAILED} (optional STRING): the clause whose CAST could not convert the
 *       record, which goes to the dead letters; {@value #TOPIC}, {@value #PARTITION}, {@value
 *       #OFFSET} (optional): where a dead letter came from;
 *   <li>{@value #RECORD} (optional ROW): the source columns the target leaves out, so that a dead
 *       letter's payload is the whole record.
 * </ul>
 *
 * The job's planner produces this projection from the flow's SQL; a DataStream user produces it by
 * hand.
 */
public final class EngineSpec implements Serializable {
    private static final long serialVersionUID = 1L;

    public static final String SEQUENCE = "__seq";
    public static final String SYSTEM_SEQUENCE = "__sys";
    public static final String DELETE = "__delete";
    public static final String TRUNCATE = "__truncate";
    public static final String COLUMNS_TO_UPDATE = "__columns_to_update";

    /**
     * Optional BOOLEAN, flows from snapshots only: APPLY AS SNAPSHOT END WHEN; a row where it holds
     * is no data but ends the snapshot of its sequences on its split (semantics §10). Null counts
     * as false.
     */
    public static final String SNAPSHOT_END = "__snapshot_end";

    /**
     * Optional BOOLEAN, flows from a stream only: the row erases its key ({@code
     * KeyedTarget.erase}). Null counts as false.
     */
    public static final String ERASE = "__erase";

    /**
     * Optional STRING: the clause whose CAST could not convert the record's value (the row is a
     * dead letter); null when every CAST converted.
     */
    public static final String CAST_FAILED = "__cast_failed";

    /** Optional Kafka coordinates (STRING, INT, BIGINT), copied into dead letters. */
    public static final String TOPIC = "__topic";

    public static final String PARTITION = "__partition";
    public static final String OFFSET = "__offset";

    /**
     * Optional ROW: the source's columns that are not base columns (left out by COLUMNS), carried
     * only for dead-letter payloads.
     */
    public static final String RECORD = "__record";

    /** The prefix of the control column names above. */
    public static final String DEFAULT_CONTROL_PREFIX = "__";

    /** Every control column name: an input column of one of these names is not a target column. */
    public static final Set<String> CONTROL_COLUMNS =
            Set.of(
                    SEQUENCE,
                    SYSTEM_SEQUENCE,
                    DELETE,
                    TRUNCATE,
                    COLUMNS_TO_UPDATE,
                    SNAPSHOT_END,
                    ERASE,
                    CAST_FAILED,
                    TOPIC,
                    PARTITION,
                    OFFSET,
                    RECORD);

    /** The target's own columns, which no base column may be named like (semantics §3-5). */
    private static final List<String> PERIOD_COLUMNS =
            List.of("__START_AT", "__END_AT", "__SYSTEM_START_AT", "__SYSTEM_END_AT");

    /**
     * {@link FlowDefinitionException#problem()}: a kept column is named like one of the target's
     * own (its subject).
     */
    public static final String RESERVED_COLUMN = "reserved column";

    /** Default tombstone retention: 2 days, as Databricks' tombstoneGCThresholdInSeconds. */
    public static final Duration DEFAULT_TOMBSTONE_RETENTION = Duration.ofDays(2);

    /**
     * Default history entries per stored block (SCD2 and bitemporal): the recent entries kept
     * before they move into a block, and the size of a block. The recent entries are read and
     * written on every event, so they are the working set RocksDB's block cache must hold; late
     * events read one block per this many entries they land behind. Smaller blocks favour many
     * keys, larger ones late events; the measurements behind 4 are in docs/state.md.
     */
    public static final int DEFAULT_BLOCK_SIZE = 4;

    /** The largest block size: a block, read on a late event, should stay a few kilobytes. */
    public static final int MAX_BLOCK_SIZE = 1024;

    /** Default keys in the write-back cache of hot state: off. */
    public static final int DEFAULT_STATE_CACHE_KEYS = 0;

    /** The most keys a write-back cache holds (several hundred bytes of heap each). */
    public static final int MAX_STATE_CACHE_KEYS = 10_000_000;

    private final Flow flow;
    private final RowType inputType;
    private final int[] baseFields;
    private final int sequenceField;
    private final int systemSequenceField;
    private final int deleteField;
    private final int truncateField;
    private final int columnsToUpdateField;
    private final boolean snapshot;
    private final int snapshotEndField;
    private final int eraseField;
    private final Double snapshotHoldThreshold;
    private final String controlPrefix;
    private final OutputMode outputMode;
    private final Duration tombstoneRetention;
    private final Duration historyRetention;
    private final int blockSize;
    private final int stateCacheKeys;

    private EngineSpec(
            Builder b, Flow flow, int[] baseFields, int seq, int sys, int del, int trunc, int ctu) {
        this.flow = flow;
        this.inputType = b.input;
        this.baseFields = baseFields;
        this.sequenceField = seq;
        this.systemSequenceField = sys;
        this.deleteField = del;
        this.truncateField = trunc;
        this.columnsToUpdateField = ctu;
        this.snapshot = b.snapshot;
        this.snapshotHoldThreshold = b.snapshotHoldThreshold;
        this.snapshotEndField =
                b.input.getFieldNames().indexOf(controlName(b.controlPrefix, SNAPSHOT_END));
        this.eraseField = b.input.getFieldNames().indexOf(controlName(b.controlPrefix, ERASE));
        this.controlPrefix = b.controlPrefix;
        this.outputMode = b.outputMode;
        this.tombstoneRetention = b.tombstoneRetention;
        this.historyRetention = b.historyRetention;
        this.blockSize = b.blockSize;
        this.stateCacheKeys = b.stateCacheKeys;
    }

    public static Builder builder(String flowName, TargetType type, RowType input) {
        return new Builder(flowName, type, input);
    }

    /**
     * A control column's name under a prefix: {@code controlName("__autocdc_", SEQUENCE)} is {@code
     * __autocdc_seq}.
     *
     * @param controlColumn one of the default names above
     */
    public static String controlName(String prefix, String controlColumn) {
        return prefix + controlColumn.substring(DEFAULT_CONTROL_PREFIX.length());
    }

    /**
     * The first of {@code __}, {@code __autocdc_}, {@code __autocdc1_}, ... under which no control
     * column name equals one of {@code columns} (ignoring case): the prefix a planner gives its
     * control columns so that every source column stays data.
     */
    public static String controlPrefixAvoiding(Collection<String> columns) {
        Set<String> taken = new HashSet<>();
        for (String c : columns) {
            taken.add(c.toLowerCase(Locale.ROOT));
        }
        for (int i = 0; ; i++) {
            String prefix =
                    i == 0 ? DEFAULT_CONTROL_PREFIX : i == 1 ? "__autocdc_" : "__autocdc" + i + "_";
            boolean free = true;
            for (String c : CONTROL_COLUMNS) {
                free &= !taken.contains(controlName(prefix, c).toLowerCase(Locale.ROOT));
            }
            if (free) {
                return prefix;
            }
        }
    }

    public Flow flow() {
        return flow;
    }

    public RowType inputType() {
        return inputType;
    }

    /** Where each base column (keys and values, target order) is in the input row. */
    public int[] baseFields() {
        return baseFields;
    }

    public int sequenceField() {
        return sequenceField;
    }

    public int systemSequenceField() {
        return systemSequenceField;
    }

    public int deleteField() {
        return deleteField;
    }

    public int truncateField() {
        return truncateField;
    }

    public int columnsToUpdateField() {
        return columnsToUpdateField;
    }

    /**
     * Whether the input rows are whole snapshots (semantics §10) rather than changes: {@code
     * AutoCdc.apply} then turns each complete snapshot into the changes it stands for.
     */
    public boolean snapshot() {
        return snapshot;
    }

    /**
     * A flow from snapshots: the share of the previous complete snapshot's rows a snapshot may lack
     * before it is held (the safety valve against a truncated export); null: never held.
     */
    public Double snapshotHoldThreshold() {
        return snapshotHoldThreshold;
    }

    /** The {@value #ERASE} column, or -1. */
    public int eraseField() {
        return eraseField;
    }

    /** The {@value #SNAPSHOT_END} column, or -1. */
    public int snapshotEndField() {
        return snapshotEndField;
    }

    private transient Map<String, Integer> controlFields;

    /**
     * Position of an optional control column, or -1 (looked up once: this is on every event's
     * path).
     */
    public int field(String controlColumn) {
        if (controlFields == null) {
            Map<String, Integer> m = new HashMap<>();
            for (String c : CONTROL_COLUMNS) {
                m.put(c, inputType.getFieldNames().indexOf(controlName(controlPrefix, c)));
            }
            controlFields = m;
        }
        return controlFields.getOrDefault(controlColumn, -1);
    }

    public OutputMode outputMode() {
        return outputMode;
    }

    /** Null = tombstones are kept forever. */
    public Duration tombstoneRetention() {
        return tombstoneRetention;
    }

    /** Null = keep all history (the default). */
    public Duration historyRetention() {
        return historyRetention;
    }

    /**
     * SCD type 2 and bitemporal: the entries of a key's history stored as one state value (see
     * {@code FlinkTimeline}).
     */
    public int blockSize() {
        return blockSize;
    }

    /**
     * Keys whose hot state (SCD1's decisive events, the recent entries of SCD2 and bitemporal
     * histories) a flow's operator keeps in a write-back cache ({@code WriteBackCache}); 0: none.
     */
    public int stateCacheKeys() {
        return stateCacheKeys;
    }

    /**
     * The target row type: base columns, then {@code __START_AT}, {@code __END_AT} (SCD2 and
     * bitemporal, the sequence's type) and {@code __SYSTEM_START_AT}, {@code __SYSTEM_END_AT}
     * (bitemporal).
     */
    public RowType targetType() {
        List<RowType.RowField> fields = new ArrayList<>();
        for (int f : baseFields) {
            fields.add(inputType.getFields().get(f));
        }
        if (flow.targetType() != TargetType.SCD1) {
            LogicalType seq = inputType.getTypeAt(sequenceField).copy(true);
            fields.add(new RowType.RowField("__START_AT", seq));
            fields.add(new RowType.RowField("__END_AT", seq));
        }
        if (flow.targetType() == TargetType.BITEMPORAL) {
            LogicalType sys = inputType.getTypeAt(systemSequenceField).copy(true);
            fields.add(new RowType.RowField("__SYSTEM_START_AT", sys));
            fields.add(new RowType.RowField("__SYSTEM_END_AT", sys));
        }
        return new RowType(fields);
    }

    /** Positions of the target's primary key in {@link #targetType()} (semantics §3-5). */
    public int[] targetPrimaryKey() {
        int[] keys = flow.keyIndexes();
        int n = baseFields.length;
        switch (flow.targetType()) {
            case SCD1:
                return keys;
            case SCD2:
                {
                    int[] pk = Arrays.copyOf(keys, keys.length + 1);
                    pk[keys.length] = n;
                    return pk;
                }
            default:
                {
                    int[] pk = Arrays.copyOf(keys, keys.length + 2);
                    pk[keys.length] = n;
                    pk[keys.length + 1] = n + 2;
                    return pk;
                }
        }
    }

    /**
     * Builds an {@link EngineSpec}; {@link #build()} fails fast, naming the clause, on a wrong
     * definition.
     */
    public static final class Builder {
        private final FlowBuilder flow;
        private final TargetType type;
        private final RowType input;
        private OutputMode outputMode = OutputMode.RETRACT;
        private Duration tombstoneRetention = DEFAULT_TOMBSTONE_RETENTION;
        private Duration historyRetention;
        private int blockSize = DEFAULT_BLOCK_SIZE;
        private int stateCacheKeys = DEFAULT_STATE_CACHE_KEYS;
        private String controlPrefix = DEFAULT_CONTROL_PREFIX;
        private boolean snapshot;
        private Double snapshotHoldThreshold;

        private Builder(String flowName, TargetType type, RowType input) {
            this.flow = Flow.builder(flowName, type);
            this.type = type;
            this.input = input;
        }

        public Builder keys(String... keys) {
            flow.keys(keys);
            return this;
        }

        public Builder keys(Collection<String> keys) {
            flow.keys(keys);
            return this;
        }

        /**
         * Base columns that hold the SEQUENCE BY / SYSTEM SEQUENCE BY source columns kept by
         * COLUMNS.
         */
        public Builder sequenceColumns(Collection<String> columns) {
            flow.sequenceColumns(columns);
            return this;
        }

        public Builder sequenceColumns(String... columns) {
            flow.sequenceColumns(columns);
            return this;
        }

        public Builder ignoreNullUpdates() {
            flow.ignoreNullUpdates();
            return this;
        }

        public Builder ignoreNullUpdatesOn(Collection<String> columns) {
            flow.ignoreNullUpdatesOn(columns);
            return this;
        }

        public Builder ignoreNullUpdatesExcept(Collection<String> columns) {
            flow.ignoreNullUpdatesExcept(columns);
            return this;
        }

        public Builder trackHistoryOn(Collection<String> columns) {
            flow.trackHistoryOn(columns);
            return this;
        }

        public Builder trackHistoryExcept(Collection<String> columns) {
            flow.trackHistoryExcept(columns);
            return this;
        }

        public Builder columnsToUpdate() {
            flow.columnsToUpdate();
            return this;
        }

        /**
         * The prefix of the input's control column names instead of {@code __} (see {@link
         * #controlPrefixAvoiding}): {@code __autocdc_seq} for {@link #SEQUENCE}, and so on. Every
         * other input column is a base column, whatever its name.
         */
        public Builder controlPrefix(String prefix) {
            this.controlPrefix = prefix;
            return this;
        }

        /**
         * The input rows are whole snapshots (FROM SNAPSHOT, semantics §10): the rows sharing a
         * sequence (bitemporal: and a system sequence) are one snapshot, and a key a complete
         * snapshot lacks is deleted at its sequence. Refuses the delete, truncate and COLUMNS TO
         * UPDATE columns and IGNORE NULL UPDATES.
         */
        public Builder fromSnapshot() {
            this.snapshot = true;
            return this;
        }

        /**
         * A flow from snapshots: hold a snapshot that has fewer rows than {@code 1 - share} times
         * the previous complete snapshot's (a truncated export must not delete half the history):
         * it and every later snapshot wait, its rows go to the late events, until a restore with a
         * larger share lets it through. Null (the default): never hold.
         */
        public Builder snapshotHoldThreshold(Double share) {
            this.snapshotHoldThreshold = share;
            return this;
        }

        public Builder outputMode(OutputMode mode) {
            this.outputMode = mode;
            return this;
        }

        /** How long a deleted key is remembered (processing time); null = forever. */
        public Builder tombstoneRetention(Duration retention) {
            this.tombstoneRetention = retention;
            return this;
        }

        /**
         * SCD type 2 and bitemporal: drop from state the history that closed longer ago than this
         * (processing time); it is already in the sink. Null (the default) keeps all history.
         */
        public Builder historyRetention(Duration retention) {
            this.historyRetention = retention;
            return this;
        }

        /**
         * SCD type 2 and bitemporal: how many entries of a key's history are stored as one state
         * value (default {@value #DEFAULT_BLOCK_SIZE}; see docs/state.md). A restore may change it:
         * blocks of any size restore into any other.
         */
        public Builder blockSize(int entries) {
            this.blockSize = entries;
            return this;
        }

        /**
         * How many keys' hot state the flow's operator keeps as objects in a write-back cache,
         * written to keyed state when a key is evicted and before every checkpoint (default {@value
         * #DEFAULT_STATE_CACHE_KEYS}; 0 turns it off). Only {@code AutoCdc.apply} runs the cache;
         * the bare {@code AutoCdcFunction} ignores it.
         */
        public Builder stateCacheKeys(int keys) {
            this.stateCacheKeys = keys;
            return this;
        }

        public EngineSpec build() {
            if (stateCacheKeys < 0 || stateCacheKeys > MAX_STATE_CACHE_KEYS) {
                throw new FlowDefinitionException(
                        "state cache keys",
                        "the cache holds 0 (off) to "
                                + MAX_STATE_CACHE_KEYS
                                + " keys, not "
                                + stateCacheKeys);
            }
            if (blockSize < 1 || blockSize > MAX_BLOCK_SIZE) {
                throw new FlowDefinitionException(
                        "block size",
                        "a block holds 1 to " + MAX_BLOCK_SIZE + " entries, not " + blockSize);
            }
            if (historyRetention != null && type == TargetType.SCD1) {
                throw new FlowDefinitionException(
                        "history retention",
                        "an SCD type 1 target keeps no history;" + " remove the setting");
            }
            if ((historyRetention != null
                            && (historyRetention.isNegative() || historyRetention.isZero()))
                    || (tombstoneRetention != null
                            && (tombstoneRetention.isNegative() || tombstoneRetention.isZero()))) {
                throw new FlowDefinitionException(
                        "retention", "a retention must be a positive duration");
            }
            List<String> names = input.getFieldNames();
            Set<String> control = new HashSet<>();
            for (String c : CONTROL_COLUMNS) {
                control.add(controlName(controlPrefix, c));
            }
            int seq = names.indexOf(controlName(controlPrefix, SEQUENCE));
            int sys = names.indexOf(controlName(controlPrefix, SYSTEM_SEQUENCE));
            int del = names.indexOf(controlName(controlPrefix, DELETE));
            int trunc = names.indexOf(controlName(controlPrefix, TRUNCATE));
            int ctu = names.indexOf(controlName(controlPrefix, COLUMNS_TO_UPDATE));
            if (seq < 0) {
                throw new FlowDefinitionException(
                        "SEQUENCE BY",
                        "the engine's input has no "
                                + controlName(controlPrefix, SEQUENCE)
                                + " column");
            }
            flow.sequenceBy(TypeMapping.columnType(input.getTypeAt(seq)));
            if (sys >= 0) {
                flow.systemSequenceBy(TypeMapping.columnType(input.getTypeAt(sys)));
            }
            if (trunc >= 0) {
                flow.applyAsTruncate();
            }
            int end = names.indexOf(controlName(controlPrefix, SNAPSHOT_END));
            int erase = names.indexOf(controlName(controlPrefix, ERASE));
            if (snapshotHoldThreshold != null
                    && (!snapshot || !(snapshotHoldThreshold > 0 && snapshotHoldThreshold < 1))) {
                throw new FlowDefinitionException(
                        "snapshot hold threshold",
                        snapshot
                                ? "the share of missing rows that holds a snapshot is between 0"
                                        + " and 1 (0.2 holds a snapshot 20% smaller than the"
                                        + " previous), not "
                                        + snapshotHoldThreshold
                                : "only a flow FROM SNAPSHOT holds snapshots; remove the setting");
            }
            if (snapshot) {
                refuseInSnapshot(del, "APPLY AS DELETE WHEN");
                refuseInSnapshot(trunc, "APPLY AS TRUNCATE WHEN");
                refuseInSnapshot(ctu, "COLUMNS TO UPDATE");
                refuseInSnapshot(erase, "erasures");
            } else if (end >= 0) {
                throw new FlowDefinitionException(
                        "APPLY AS SNAPSHOT END WHEN",
                        "end rows belong to a flow from snapshots (FROM SNAPSHOT)");
            }
            if (stateCacheKeys > 0 && (snapshot || trunc >= 0)) {
                throw new FlowDefinitionException(
                        "state cache keys",
                        (snapshot ? "a flow FROM SNAPSHOT" : "a flow with APPLY AS TRUNCATE WHEN")
                                + " runs without the write-back cache (its operator visits every"
                                + " key's state); remove the setting");
            }
            checkBoolean(end, "APPLY AS SNAPSHOT END WHEN");
            checkBoolean(del, "APPLY AS DELETE WHEN");
            checkBoolean(erase, "erasures");
            checkBoolean(trunc, "APPLY AS TRUNCATE WHEN");
            if (ctu >= 0) {
                LogicalType t = input.getTypeAt(ctu);
                boolean ok =
                        t.getTypeRoot() == LogicalTypeRoot.VARCHAR
                                || t.getTypeRoot() == LogicalTypeRoot.CHAR
                                || (t.getTypeRoot() == LogicalTypeRoot.ARRAY
                                        && (t.getChildren().get(0).getTypeRoot()
                                                        == LogicalTypeRoot.VARCHAR
                                                || t.getChildren().get(0).getTypeRoot()
                                                        == LogicalTypeRoot.CHAR));
                if (!ok) {
                    throw new FlowDefinitionException(
                            "COLUMNS TO UPDATE",
                            "the column must be ARRAY<STRING> or a STRING"
                                    + " of comma-separated names, not "
                                    + t);
                }
                flow.columnsToUpdate();
            }
            List<Integer> base = new ArrayList<>();
            for (int i = 0; i < names.size(); i++) {
                String n = names.get(i);
                if (!control.contains(n)) {
                    refusePeriodName(n);
                    flow.column(n, TypeMapping.columnType(input.getTypeAt(i)));
                    base.add(i);
                }
            }
            Flow built = flow.build();
            if (snapshot && !built.isFullRow()) { // columns to update were refused above
                refuseInSnapshot(0, "IGNORE NULL UPDATES");
            }
            for (int k : built.keyIndexes()) {
                try {
                    TypeMapping.keyTypeInfo(input.getTypeAt(base.get(k)));
                } catch (IllegalArgumentException e) {
                    throw new FlowDefinitionException(
                            "KEYS",
                            e.getMessage().replace("a key column", built.columnNames().get(k)),
                            null,
                            built.columnNames().get(k));
                }
            }
            if (built.hasColumnsToUpdate() && ctu < 0) {
                throw new FlowDefinitionException(
                        "COLUMNS TO UPDATE",
                        "the engine's input has no "
                                + controlName(controlPrefix, COLUMNS_TO_UPDATE)
                                + " column");
            }
            return new EngineSpec(
                    this,
                    built,
                    base.stream().mapToInt(Integer::intValue).toArray(),
                    seq,
                    sys,
                    del,
                    trunc,
                    ctu);
        }

        /** A kept column named like one the target adds itself would be two columns of one name. */
        private void refusePeriodName(String column) {
            int own = type == TargetType.SCD1 ? 0 : type == TargetType.SCD2 ? 2 : 4;
            for (String p : PERIOD_COLUMNS.subList(0, own)) {
                if (p.equalsIgnoreCase(column)) {
                    throw new FlowDefinitionException(
                            "COLUMNS",
                            "the source column "
                                    + column
                                    + " would be kept, but an "
                                    + type
                                    + " target has its own "
                                    + p
                                    + " column; leave it out with COLUMNS * EXCEPT ("
                                    + column
                                    + ")",
                            RESERVED_COLUMN,
                            column);
                }
            }
        }

        /** semantics §10: clauses that make no sense for whole snapshots. */
        private void refuseInSnapshot(int field, String clause) {
            if (field >= 0) {
                throw new FlowDefinitionException(
                        clause,
                        "a flow from snapshots cannot have "
                                + clause
                                + ": a key missing from a complete snapshot is deleted, and each"
                                + " snapshot row is the whole row");
            }
        }

        private void checkBoolean(int field, String clause) {
            if (field >= 0 && input.getTypeAt(field).getTypeRoot() != LogicalTypeRoot.BOOLEAN) {
                throw new FlowDefinitionException(
                        clause,
                        "the condition must be a BOOLEAN expression, not "
                                + input.getTypeAt(field));
            }
        }
    }
}
