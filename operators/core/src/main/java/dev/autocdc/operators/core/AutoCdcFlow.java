package dev.autocdc.operators.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * One AUTO CDC flow as written (the SQL {@code CREATE FLOW ... AS AUTO CDC INTO} statement or the
 * Java {@link #builder}, which mirrors Databricks' {@code create_auto_cdc_flow}). Nothing is
 * resolved yet: names are as written, expressions are Flink SQL text. The planner checks it against
 * the source's schema. Immutable; equal definitions from SQL and from the builder are {@code
 * equals}.
 */
public final class AutoCdcFlow {
    private final String name;
    private final String target;
    private final String source;
    private final List<String> keys;
    private final List<String> sequenceBy;
    private final boolean sequenceIsStruct;
    private final String systemSequenceBy;
    private final String applyAsDeletes;
    private final String applyAsTruncates;
    private final boolean fromSnapshot;
    private final String applyAsSnapshotEnd;
    private final List<String> columnList;
    private final List<String> exceptColumnList;
    private final TargetType storedAs;
    private final List<String> trackHistoryColumnList;
    private final List<String> trackHistoryExceptColumnList;
    private final boolean ignoreNullUpdates;
    private final List<String> ignoreNullUpdatesColumnList;
    private final List<String> ignoreNullUpdatesExceptColumnList;
    private final String columnsToUpdate;
    private final int line;

    private AutoCdcFlow(Builder b) {
        this.name = b.name;
        this.target = b.target;
        this.source = b.source;
        this.keys = List.copyOf(b.keys);
        this.sequenceBy = List.copyOf(b.sequenceBy);
        this.sequenceIsStruct = b.sequenceIsStruct;
        this.systemSequenceBy = b.systemSequenceBy;
        this.applyAsDeletes = b.applyAsDeletes;
        this.applyAsTruncates = b.applyAsTruncates;
        this.fromSnapshot = b.fromSnapshot;
        this.applyAsSnapshotEnd = b.applyAsSnapshotEnd;
        this.columnList = copy(b.columnList);
        this.exceptColumnList = copy(b.exceptColumnList);
        this.storedAs = b.storedAs;
        this.trackHistoryColumnList = copy(b.trackHistoryColumnList);
        this.trackHistoryExceptColumnList = copy(b.trackHistoryExceptColumnList);
        this.ignoreNullUpdates = b.ignoreNullUpdates;
        this.ignoreNullUpdatesColumnList = copy(b.ignoreNullUpdatesColumnList);
        this.ignoreNullUpdatesExceptColumnList = copy(b.ignoreNullUpdatesExceptColumnList);
        this.columnsToUpdate = b.columnsToUpdate;
        this.line = b.line;
    }

    private static List<String> copy(List<String> list) {
        return list == null ? null : List.copyOf(list);
    }

    /** Starts a definition, as {@code create_auto_cdc_flow(target=..., source=...)}. */
    public static Builder builder(String target, String source) {
        return new Builder(target, source, false);
    }

    /**
     * Starts a flow from snapshots ({@code FROM SNAPSHOT(source)}, semantics §10), as Databricks'
     * {@code create_auto_cdc_from_snapshot_flow(target=..., source=...)}. The source is a table
     * whose rows are whole copies of the data, each copy's rows sharing a version (SEQUENCE BY);
     * Databricks' form may take a function that returns the next snapshot, ours takes a table only
     * (a file, a directory, a Kafka topic). The clauses that make no sense for whole snapshots
     * (APPLY AS DELETE WHEN, APPLY AS TRUNCATE WHEN, IGNORE NULL UPDATES, COLUMNS TO UPDATE) are
     * refused by {@link Builder#build()}.
     */
    public static Builder fromSnapshot(String target, String source) {
        return new Builder(target, source, true);
    }

    public String name() {
        return name;
    }

    public String target() {
        return target;
    }

    public String source() {
        return source;
    }

    public List<String> keys() {
        return keys;
    }

    /** One column, or the fields of {@code STRUCT(...)} when {@link #sequenceIsStruct()}. */
    public List<String> sequenceBy() {
        return sequenceBy;
    }

    public boolean sequenceIsStruct() {
        return sequenceIsStruct;
    }

    public String systemSequenceBy() {
        return systemSequenceBy;
    }

    public String applyAsDeletes() {
        return applyAsDeletes;
    }

    public String applyAsTruncates() {
        return applyAsTruncates;
    }

    /** Whether the source delivers whole snapshots ({@code FROM SNAPSHOT}) instead of changes. */
    public boolean fromSnapshot() {
        return fromSnapshot;
    }

    /** APPLY AS SNAPSHOT END WHEN: a Flink SQL condition marking end rows; null when absent. */
    public String applyAsSnapshotEnd() {
        return applyAsSnapshotEnd;
    }

    /** COLUMNS (list); null for all columns. */
    public List<String> columnList() {
        return columnList;
    }

    /** COLUMNS * EXCEPT (list); null when absent. */
    public List<String> exceptColumnList() {
        return exceptColumnList;
    }

    public TargetType storedAs() {
        return storedAs;
    }

    public List<String> trackHistoryColumnList() {
        return trackHistoryColumnList;
    }

    public List<String> trackHistoryExceptColumnList() {
        return trackHistoryExceptColumnList;
    }

    public boolean ignoreNullUpdates() {
        return ignoreNullUpdates;
    }

    public List<String> ignoreNullUpdatesColumnList() {
        return ignoreNullUpdatesColumnList;
    }

    public List<String> ignoreNullUpdatesExceptColumnList() {
        return ignoreNullUpdatesExceptColumnList;
    }

    public String columnsToUpdate() {
        return columnsToUpdate;
    }

    /** The line of the script where the flow starts (0 for the Java builder). */
    public int line() {
        return line;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof AutoCdcFlow)) {
            return false;
        }
        AutoCdcFlow f = (AutoCdcFlow) o;
        return Objects.equals(name, f.name)
                && Objects.equals(target, f.target)
                && Objects.equals(source, f.source)
                && keys.equals(f.keys)
                && sequenceBy.equals(f.sequenceBy)
                && sequenceIsStruct == f.sequenceIsStruct
                && Objects.equals(systemSequenceBy, f.systemSequenceBy)
                && Objects.equals(applyAsDeletes, f.applyAsDeletes)
                && Objects.equals(applyAsTruncates, f.applyAsTruncates)
                && fromSnapshot == f.fromSnapshot
                && Objects.equals(applyAsSnapshotEnd, f.applyAsSnapshotEnd)
                && Objects.equals(columnList, f.columnList)
                && Objects.equals(exceptColumnList, f.exceptColumnList)
                && storedAs == f.storedAs
                && Objects.equals(trackHistoryColumnList, f.trackHistoryColumnList)
                && Objects.equals(trackHistoryExceptColumnList, f.trackHistoryExceptColumnList)
                && ignoreNullUpdates == f.ignoreNullUpdates
                && Objects.equals(ignoreNullUpdatesColumnList, f.ignoreNullUpdatesColumnList)
                && Objects.equals(
                        ignoreNullUpdatesExceptColumnList, f.ignoreNullUpdatesExceptColumnList)
                && Objects.equals(columnsToUpdate, f.columnsToUpdate);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, target, source, keys, sequenceBy, storedAs);
    }

    @Override
    public String toString() {
        return "AUTO CDC flow "
                + name
                + " INTO "
                + target
                + (fromSnapshot ? " FROM SNAPSHOT " : " FROM ")
                + source
                + " KEYS "
                + keys
                + " SEQUENCE BY "
                + (sequenceIsStruct ? "STRUCT" : "")
                + sequenceBy
                + " STORED AS "
                + storedAs;
    }

    /**
     * Mirrors {@code create_auto_cdc_flow}: target, source, keys, sequence_by, system_sequence_by,
     * apply_as_deletes, apply_as_truncates, column_list, except_column_list, stored_as_scd_type (1,
     * 2 or "bitemporal", as int or string), track_history_column_list,
     * track_history_except_column_list, ignore_null_updates (and its column-list forms),
     * columns_to_update, name; for a flow from snapshots ({@link AutoCdcFlow#fromSnapshot}) also
     * {@link #applyAsSnapshotEnd}.
     */
    public static final class Builder {
        // the fields without "private" are read by AutoCdcFlowRules
        String name;
        private final String target;
        final String source;
        final List<String> keys = new ArrayList<>();
        final List<String> sequenceBy = new ArrayList<>();
        private boolean sequenceIsStruct;
        private String systemSequenceBy;
        String applyAsDeletes;
        String applyAsTruncates;
        final boolean fromSnapshot;
        String applyAsSnapshotEnd;
        private List<String> columnList;
        private List<String> exceptColumnList;
        private TargetType storedAs = TargetType.SCD1;
        private List<String> trackHistoryColumnList;
        private List<String> trackHistoryExceptColumnList;
        boolean ignoreNullUpdates;
        List<String> ignoreNullUpdatesColumnList;
        List<String> ignoreNullUpdatesExceptColumnList;
        String columnsToUpdate;
        private int line;

        private Builder(String target, String source, boolean fromSnapshot) {
            this.target = target;
            this.source = source;
            this.fromSnapshot = fromSnapshot;
            this.name = target;
        }

        public Builder name(String flowName) {
            this.name = flowName;
            return this;
        }

        public Builder keys(List<String> columns) {
            keys.addAll(columns);
            return this;
        }

        public Builder keys(String... columns) {
            return keys(List.of(columns));
        }

        public Builder sequenceBy(String column) {
            sequenceBy.clear();
            sequenceBy.add(column);
            sequenceIsStruct = false;
            return this;
        }

        /** {@code sequence_by = struct(c1, c2, ...)}: ordered by c1, ties broken by c2, ... */
        public Builder sequenceByStruct(List<String> columns) {
            sequenceBy.clear();
            sequenceBy.addAll(columns);
            sequenceIsStruct = true;
            return this;
        }

        public Builder systemSequenceBy(String column) {
            this.systemSequenceBy = column;
            return this;
        }

        /** A Flink SQL boolean expression over the source's columns. */
        public Builder applyAsDeletes(String expression) {
            this.applyAsDeletes = expression;
            return this;
        }

        public Builder applyAsTruncates(String expression) {
            this.applyAsTruncates = expression;
            return this;
        }

        /**
         * APPLY AS SNAPSHOT END WHEN (flows from snapshots only): a Flink SQL boolean expression
         * over the source's columns; a row where it holds is not data but ends, on its split, the
         * snapshot of its version (and system sequence).
         */
        public Builder applyAsSnapshotEnd(String expression) {
            this.applyAsSnapshotEnd = expression;
            return this;
        }

        public Builder columnList(List<String> columns) {
            this.columnList = columns;
            return this;
        }

        public Builder exceptColumnList(List<String> columns) {
            this.exceptColumnList = columns;
            return this;
        }

        /** 1, 2 or "bitemporal" (also "1", "2"), as {@code stored_as_scd_type}. */
        public Builder storedAsScdType(Object type) {
            String t = String.valueOf(type).trim().toLowerCase(Locale.ROOT);
            switch (t) {
                case "1":
                    storedAs = TargetType.SCD1;
                    break;
                case "2":
                    storedAs = TargetType.SCD2;
                    break;
                case "bitemporal":
                    storedAs = TargetType.BITEMPORAL;
                    break;
                default:
                    throw new IllegalArgumentException(
                            "stored_as_scd_type must be 1, 2 or \"bitemporal\", not " + type);
            }
            return this;
        }

        public Builder storedAs(TargetType type) {
            this.storedAs = type;
            return this;
        }

        public Builder trackHistoryColumnList(List<String> columns) {
            this.trackHistoryColumnList = columns;
            return this;
        }

        public Builder trackHistoryExceptColumnList(List<String> columns) {
            this.trackHistoryExceptColumnList = columns;
            return this;
        }

        public Builder ignoreNullUpdates(boolean ignore) {
            this.ignoreNullUpdates = ignore;
            return this;
        }

        public Builder ignoreNullUpdatesColumnList(List<String> columns) {
            this.ignoreNullUpdatesColumnList = columns;
            return this;
        }

        public Builder ignoreNullUpdatesExceptColumnList(List<String> columns) {
            this.ignoreNullUpdatesExceptColumnList = columns;
            return this;
        }

        public Builder columnsToUpdate(String column) {
            this.columnsToUpdate = column;
            return this;
        }

        /** The line of the flow file where the flow starts, for the planner's messages. */
        public Builder line(int firstLine) {
            this.line = firstLine;
            return this;
        }

        public AutoCdcFlow build() {
            AutoCdcFlowRules.check(this);
            return new AutoCdcFlow(this);
        }
    }
}
