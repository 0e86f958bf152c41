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
import java.util.List;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * Everything the AUTO CDC operator needs to know: the {@link Flow}, how its input rows are laid
 * out, the output mode and the retentions.
 *
 * <p><b>The input contract.</b> The operator consumes {@code RowData} whose fields are the target's
 * base columns (keys and values, in target order, after COLUMNS) followed by the control columns of
 * {@link ControlColumn}, found by name; every other input column is a base column, whatever its
 * name ({@link InputLayout} reads it).
 */
public final class EngineSpec implements Serializable {
    private static final long serialVersionUID = 1L;

    /**
     * {@link FlowDefinitionException#problem()}: a kept column is named like one of the target's
     * own (its subject).
     */
    public static final String RESERVED_COLUMN = "reserved column";

    /**
     * Default history entries per stored block (SCD2 and bitemporal): the recent entries kept
     * before they move into a block, and the size of a block. The recent entries are read and
     * written on every event, so they are the working set RocksDB's block cache must hold; late
     * events read one block per this many entries they land behind. Smaller blocks favour many
     * keys, larger ones late events; the measurements behind 4 are in docs/state.md.
     */
    public static final int DEFAULT_BLOCK_SIZE = 4;

    private final Flow flow;
    private final RowType inputType;
    private final int[] baseFields;

    /** The position of each {@link ControlColumn} in the input (by ordinal), or -1. */
    private final int[] controlFields;

    private final boolean snapshot;
    private final Double snapshotHoldThreshold;
    private final OutputMode outputMode;
    private final Duration tombstoneRetention;
    private final Duration historyRetention;
    private final int blockSize;
    private final StateCacheSpec stateCache;

    private EngineSpec(
            Builder b, Flow flow, int[] baseFields, int[] controlFields, int stateCacheKeys) {
        this.flow = flow;
        this.inputType = b.input;
        this.baseFields = baseFields;
        this.controlFields = controlFields;
        this.snapshot = b.snapshot;
        this.snapshotHoldThreshold = b.snapshotHoldThreshold;
        this.outputMode = b.outputMode;
        this.tombstoneRetention = b.tombstoneRetention;
        this.historyRetention = b.historyRetention;
        this.blockSize = b.blockSize;
        this.stateCache =
                new StateCacheSpec(
                        stateCacheKeys,
                        b.stateCacheMemory == null ? 0 : b.stateCacheMemory.getBytes(),
                        b.stateCacheShares);
    }

    public static Builder builder(String flowName, TargetType type, RowType input) {
        return new Builder(flowName, type, input);
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

    /** The position of a control column in the input row, or -1 when the input has none. */
    public int field(ControlColumn column) {
        return controlFields[column.ordinal()];
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
     * The write-back cache of hot state (SCD1's decisive events, the recent entries of SCD2 and
     * bitemporal histories) a flow's operator keeps.
     */
    public StateCacheSpec stateCache() {
        return stateCache;
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
            LogicalType seq = inputType.getTypeAt(field(ControlColumn.SEQUENCE)).copy(true);
            fields.add(new RowType.RowField("__START_AT", seq));
            fields.add(new RowType.RowField("__END_AT", seq));
        }
        if (flow.targetType() == TargetType.BITEMPORAL) {
            LogicalType sys = inputType.getTypeAt(field(ControlColumn.SYSTEM_SEQUENCE)).copy(true);
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
        private Duration tombstoneRetention = EngineOptions.DEFAULT_TOMBSTONE_RETENTION;
        private Duration historyRetention;
        private int blockSize = DEFAULT_BLOCK_SIZE;
        private Integer stateCacheKeys;
        private MemorySize stateCacheMemory;
        private int stateCacheShares = 1;
        private String controlPrefix = ControlColumn.DEFAULT_PREFIX;
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
         * ControlColumn#prefixAvoiding}): {@code __autocdc_seq} for {@link ControlColumn#SEQUENCE},
         * and so on. Every other input column is a base column, whatever its name.
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
         * The most keys whose hot state the flow's operator keeps as objects in a write-back cache,
         * written to keyed state when a key is evicted and before every checkpoint; 0: off; null
         * (the default): as many as its memory holds, off for a flow whose operator visits every
         * key. Only {@code AutoCdc.apply} runs the cache; the bare {@code AutoCdcFunction} ignores
         * it.
         */
        public Builder stateCacheKeys(Integer keys) {
            this.stateCacheKeys = keys;
            return this;
        }

        /** The heap the cache may fill; null (the default): from the task's memory. */
        public Builder stateCacheMemory(MemorySize memory) {
            this.stateCacheMemory = memory;
            return this;
        }

        /** The flows of the job whose caches share a slot's budget (default 1). */
        public Builder stateCacheShares(int flows) {
            this.stateCacheShares = Math.max(1, flows);
            return this;
        }

        public EngineSpec build() {
            checkSettings();
            InputLayout layout = new InputLayout(input, type, controlPrefix, snapshot);
            layout.declareControls(flow);
            boolean visitsEveryKey = layout.field(ControlColumn.TRUNCATE) >= 0;
            if (stateCacheKeys != null && stateCacheKeys > 0 && visitsEveryKey) {
                throw new FlowDefinitionException(
                        EngineOptions.STATE_CACHE_KEYS.key(),
                        "a flow with APPLY AS TRUNCATE WHEN runs without the write-back cache (its"
                                + " operator visits every key's state); remove the setting");
            }
            Flow built = layout.build(flow);
            int keys =
                    stateCacheKeys != null
                            ? stateCacheKeys
                            : visitsEveryKey ? 0 : EngineOptions.MAX_STATE_CACHE_KEYS;
            return new EngineSpec(this, built, layout.baseFields(), layout.controlFields(), keys);
        }

        /** The settings' ranges ({@link EngineOptions}) and the target types they apply to. */
        private void checkSettings() {
            EngineOptions.check(EngineOptions.STATE_CACHE_KEYS, stateCacheKeys);
            EngineOptions.check(EngineOptions.STATE_CACHE_MEMORY, stateCacheMemory);
            EngineOptions.check(EngineOptions.BLOCK_SIZE, blockSize);
            EngineOptions.check(EngineOptions.TOMBSTONE_RETENTION, tombstoneRetention);
            EngineOptions.check(EngineOptions.HISTORY_RETENTION, historyRetention);
            EngineOptions.check(EngineOptions.SNAPSHOT_HOLD_THRESHOLD, snapshotHoldThreshold);
            if (historyRetention != null && type == TargetType.SCD1) {
                throw new FlowDefinitionException(
                        EngineOptions.HISTORY_RETENTION.key(),
                        "an SCD type 1 target keeps no history; remove the setting");
            }
            if (snapshotHoldThreshold != null && !snapshot) {
                throw new FlowDefinitionException(
                        EngineOptions.SNAPSHOT_HOLD_THRESHOLD.key(),
                        "only a flow FROM SNAPSHOT holds snapshots; remove the setting");
            }
        }
    }
}
