package dev.autocdc.operators.core;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One AUTO CDC flow as the engine sees it, after the COLUMNS projection: the target's base columns
 * (keys and values, in target order), which are keys, which hold a sequence, and the options of
 * SPEC §1 that change the fold or the history. Immutable; build it with {@link #builder}, which
 * rejects the invalid combinations of SPEC §1 with a {@link FlowDefinitionException} naming the
 * clause.
 *
 * <p>The sequence itself is not a base column: it is carried by each event (and kept in the target
 * only when COLUMNS keeps its source columns, which {@link Builder#sequenceColumns} marks).
 */
public final class Flow implements Serializable {
    private static final long serialVersionUID = 1L;

    private final String name;
    private final TargetType targetType;
    private final List<String> columnNames;
    private final List<ColumnType> columnTypes;
    private final int[] keyIndexes;
    private final boolean[] key;
    private final boolean[] sequenceColumn;
    private final boolean[] ignoreNull;
    private final boolean[] tracked;
    private final boolean columnsToUpdate;
    private final ColumnType sequenceType;
    private final ColumnType systemSequenceType;
    private final boolean fullRow;
    private transient SequenceCodec sequenceCodec;
    private transient SequenceCodec systemSequenceCodec;

    private Flow(
            Builder b,
            int[] keyIndexes,
            boolean[] key,
            boolean[] sequenceColumn,
            boolean[] ignoreNull,
            boolean[] tracked) {
        this.name = b.name;
        this.targetType = b.targetType;
        this.columnNames = List.copyOf(b.columnNames);
        this.columnTypes = List.copyOf(b.columnTypes);
        this.keyIndexes = keyIndexes;
        this.key = key;
        this.sequenceColumn = sequenceColumn;
        this.ignoreNull = ignoreNull;
        this.tracked = tracked;
        this.columnsToUpdate = b.columnsToUpdate;
        this.sequenceType = b.sequenceType;
        this.systemSequenceType = b.systemSequenceType;
        boolean anyIgnoreNull = false;
        for (boolean x : ignoreNull) {
            anyIgnoreNull |= x;
        }
        this.fullRow = !anyIgnoreNull && !columnsToUpdate;
    }

    public static Builder builder(String name, TargetType targetType) {
        return new Builder(name, targetType);
    }

    public String name() {
        return name;
    }

    public TargetType targetType() {
        return targetType;
    }

    public List<String> columnNames() {
        return columnNames;
    }

    public List<ColumnType> columnTypes() {
        return columnTypes;
    }

    public int columnCount() {
        return columnNames.size();
    }

    public int[] keyIndexes() {
        return keyIndexes.clone();
    }

    public boolean isKey(int column) {
        return key[column];
    }

    /**
     * A base column that holds (part of) the SEQUENCE BY or SYSTEM SEQUENCE BY: always written,
     * never tracked.
     */
    public boolean isSequenceColumn(int column) {
        return sequenceColumn[column];
    }

    public boolean ignoresNull(int column) {
        return ignoreNull[column];
    }

    /**
     * Whether a change in this column opens a new version (SCD2, bitemporal). Keys and sequence
     * columns are not.
     */
    public boolean isTracked(int column) {
        return tracked[column];
    }

    public boolean hasColumnsToUpdate() {
        return columnsToUpdate;
    }

    /** No IGNORE NULL UPDATES and no COLUMNS TO UPDATE: an upsert's row is the whole new state. */
    public boolean isFullRow() {
        return fullRow;
    }

    public ColumnType sequenceType() {
        return sequenceType;
    }

    public ColumnType systemSequenceType() {
        return systemSequenceType;
    }

    public SequenceCodec sequenceCodec() {
        if (sequenceCodec == null) {
            sequenceCodec = new SequenceCodec(sequenceType);
        }
        return sequenceCodec;
    }

    public SequenceCodec systemSequenceCodec() {
        if (systemSequenceCodec == null && systemSequenceType != null) {
            systemSequenceCodec = new SequenceCodec(systemSequenceType);
        }
        return systemSequenceCodec;
    }

    /** Index of a base column, or -1. */
    public int indexOf(String column) {
        for (int i = 0; i < columnNames.size(); i++) {
            if (columnNames.get(i).equalsIgnoreCase(column)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Whether the column is a value column (a base column that is not a key): COLUMNS TO UPDATE may
     * name it.
     */
    public boolean isValueColumn(int column) {
        return column >= 0 && !key[column];
    }

    /** Builds a {@link Flow}; {@link #build} validates it. */
    public static final class Builder {
        private final String name;
        private final TargetType targetType;
        private final List<String> columnNames = new ArrayList<>();
        private final List<ColumnType> columnTypes = new ArrayList<>();
        private final List<String> keys = new ArrayList<>();
        private final Set<String> sequenceColumns = new LinkedHashSet<>();
        private ColumnType sequenceType;
        private ColumnType systemSequenceType;
        private boolean ignoreNullUpdates;
        private Collection<String> ignoreNullOn;
        private Collection<String> ignoreNullExcept;
        private boolean columnsToUpdate;
        private boolean truncates;
        private Collection<String> trackOn;
        private Collection<String> trackExcept;

        private Builder(String name, TargetType targetType) {
            this.name = name;
            this.targetType = targetType;
        }

        /** Adds a base column of the target (after the COLUMNS projection), in target order. */
        public Builder column(String columnName, ColumnType type) {
            columnNames.add(columnName);
            columnTypes.add(type);
            return this;
        }

        public Builder keys(String... keyColumns) {
            keys.addAll(Arrays.asList(keyColumns));
            return this;
        }

        public Builder keys(Collection<String> keyColumns) {
            keys.addAll(keyColumns);
            return this;
        }

        public Builder sequenceBy(ColumnType type) {
            this.sequenceType = type;
            return this;
        }

        public Builder systemSequenceBy(ColumnType type) {
            this.systemSequenceType = type;
            return this;
        }

        /**
         * Base columns that hold the source's sequence (or system sequence) columns kept by
         * COLUMNS.
         */
        public Builder sequenceColumns(String... columns) {
            sequenceColumns.addAll(Arrays.asList(columns));
            return this;
        }

        public Builder sequenceColumns(Collection<String> columns) {
            sequenceColumns.addAll(columns);
            return this;
        }

        /** IGNORE NULL UPDATES (all value columns). */
        public Builder ignoreNullUpdates() {
            this.ignoreNullUpdates = true;
            return this;
        }

        /** IGNORE NULL UPDATES ON (columns). */
        public Builder ignoreNullUpdatesOn(Collection<String> columns) {
            this.ignoreNullOn = List.copyOf(columns);
            return this;
        }

        /** IGNORE NULL UPDATES ON * EXCEPT (columns). */
        public Builder ignoreNullUpdatesExcept(Collection<String> columns) {
            this.ignoreNullExcept = List.copyOf(columns);
            return this;
        }

        /** COLUMNS TO UPDATE: each event carries the list of value columns it writes. */
        public Builder columnsToUpdate() {
            this.columnsToUpdate = true;
            return this;
        }

        /** APPLY AS TRUNCATE WHEN: some events truncate the target (SCD type 1 only). */
        public Builder applyAsTruncate() {
            this.truncates = true;
            return this;
        }

        /** TRACK HISTORY ON (columns). */
        public Builder trackHistoryOn(Collection<String> columns) {
            this.trackOn = List.copyOf(columns);
            return this;
        }

        /** TRACK HISTORY ON * EXCEPT (columns). */
        public Builder trackHistoryExcept(Collection<String> columns) {
            this.trackExcept = List.copyOf(columns);
            return this;
        }

        public Flow build() {
            int n = columnNames.size();
            if (keys.isEmpty()) {
                throw new FlowDefinitionException(
                        "KEYS", "a flow needs at least one key column; add KEYS (col, ...)");
            }
            if (sequenceType == null) {
                throw new FlowDefinitionException(
                        "SEQUENCE BY",
                        "a flow needs SEQUENCE BY col or SEQUENCE BY STRUCT(c1, c2, ...)");
            }
            if (!sequenceType.sortsAsSequence()) {
                throw new FlowDefinitionException(
                        "SEQUENCE BY",
                        "type "
                                + sequenceType
                                + " does not sort; use INT, BIGINT, DECIMAL, DATE, TIMESTAMP,"
                                + " TIMESTAMP_LTZ, STRING or a STRUCT of those");
            }
            if (truncates && targetType != TargetType.SCD1) {
                throw new FlowDefinitionException(
                        "APPLY AS TRUNCATE WHEN",
                        "truncates apply to SCD type 1 only;"
                                + " remove the clause or use STORED AS SCD TYPE 1");
            }
            if (targetType == TargetType.BITEMPORAL && systemSequenceType == null) {
                throw new FlowDefinitionException(
                        "STORED AS BITEMPORAL", "a bitemporal target needs SYSTEM SEQUENCE BY col");
            }
            if (targetType != TargetType.BITEMPORAL && systemSequenceType != null) {
                throw new FlowDefinitionException(
                        "SYSTEM SEQUENCE BY",
                        "only a bitemporal target has a system time;"
                                + " remove it or use STORED AS BITEMPORAL");
            }
            if (systemSequenceType != null && !systemSequenceType.sortsAsSequence()) {
                throw new FlowDefinitionException(
                        "SYSTEM SEQUENCE BY",
                        "type "
                                + systemSequenceType
                                + " does not sort; use INT, BIGINT, DECIMAL, DATE, TIMESTAMP,"
                                + " TIMESTAMP_LTZ, STRING or a STRUCT of those");
            }
            for (int i = 0; i < n; i++) {
                for (int j = i + 1; j < n; j++) {
                    if (columnNames.get(i).equalsIgnoreCase(columnNames.get(j))) {
                        throw new FlowDefinitionException(
                                "COLUMNS", "column " + columnNames.get(i) + " appears twice");
                    }
                }
            }
            boolean[] key = new boolean[n];
            int[] keyIndexes = new int[keys.size()];
            for (int k = 0; k < keys.size(); k++) {
                int i = index(keys.get(k), "KEYS");
                if (key[i]) {
                    throw new FlowDefinitionException(
                            "KEYS", "key column " + keys.get(k) + " is listed twice");
                }
                key[i] = true;
                keyIndexes[k] = i;
            }
            boolean[] sequence = new boolean[n];
            for (String s : sequenceColumns) {
                int i = index(s, "SEQUENCE BY");
                if (key[i]) {
                    throw new FlowDefinitionException(
                            "SEQUENCE BY", "key column " + s + " cannot be the sequence");
                }
                sequence[i] = true;
            }
            boolean[] ignoreNull = new boolean[n];
            int ignoreForms =
                    (ignoreNullUpdates ? 1 : 0)
                            + (ignoreNullOn != null ? 1 : 0)
                            + (ignoreNullExcept != null ? 1 : 0);
            if (ignoreForms > 1) {
                throw new FlowDefinitionException(
                        "IGNORE NULL UPDATES",
                        "give it once: for all columns, ON (list) or ON * EXCEPT (list)");
            }
            if (ignoreForms == 1 && columnsToUpdate) {
                throw new FlowDefinitionException(
                        "COLUMNS TO UPDATE",
                        "cannot be combined with IGNORE NULL UPDATES; keep one of them (COLUMNS TO"
                                + " UPDATE already writes explicit nulls only where listed)");
            }
            if (ignoreNullUpdates) {
                for (int i = 0; i < n; i++) {
                    ignoreNull[i] = !key[i] && !sequence[i];
                }
            } else if (ignoreNullOn != null) {
                for (String c : ignoreNullOn) {
                    int i = valueIndex(c, "IGNORE NULL UPDATES ON");
                    ignoreNull[i] = !sequence[i];
                }
            } else if (ignoreNullExcept != null) {
                boolean[] except = mask(ignoreNullExcept, "IGNORE NULL UPDATES ON * EXCEPT");
                for (int i = 0; i < n; i++) {
                    ignoreNull[i] = !key[i] && !sequence[i] && !except[i];
                }
            }
            boolean[] tracked = new boolean[n];
            if (trackOn != null || trackExcept != null) {
                if (targetType == TargetType.SCD1) {
                    throw new FlowDefinitionException(
                            "TRACK HISTORY",
                            "SCD type 1 keeps no history; remove TRACK HISTORY"
                                    + " or use STORED AS SCD TYPE 2 / BITEMPORAL");
                }
                if (trackOn != null && trackExcept != null) {
                    throw new FlowDefinitionException(
                            "TRACK HISTORY",
                            "give either ON (list) or ON * EXCEPT (list), not both");
                }
            }
            if (trackOn != null) {
                for (String c : trackOn) {
                    int i = valueIndex(c, "TRACK HISTORY ON");
                    if (sequence[i]) {
                        throw new FlowDefinitionException(
                                "TRACK HISTORY ON",
                                columnNames.get(i)
                                        + " is a sequence column (SEQUENCE BY or SYSTEM SEQUENCE"
                                        + " BY), which is never tracked: it takes each event's"
                                        + " value without opening a version; remove it from the"
                                        + " list");
                    }
                    tracked[i] = true;
                }
            } else {
                boolean[] except =
                        trackExcept == null
                                ? new boolean[n]
                                : mask(trackExcept, "TRACK HISTORY ON * EXCEPT");
                for (int i = 0; i < n; i++) {
                    tracked[i] = !key[i] && !sequence[i] && !except[i];
                }
            }
            return new Flow(this, keyIndexes, key, sequence, ignoreNull, tracked);
        }

        private int index(String column, String clause) {
            for (int i = 0; i < columnNames.size(); i++) {
                if (columnNames.get(i).equalsIgnoreCase(column)) {
                    return i;
                }
            }
            throw new FlowDefinitionException(
                    clause,
                    "unknown column " + column + "; the target's columns are " + columnNames);
        }

        private int valueIndex(String column, String clause) {
            int i = index(column, clause);
            for (String k : keys) {
                if (k.equalsIgnoreCase(column)) {
                    throw new FlowDefinitionException(
                            clause,
                            "key column "
                                    + column
                                    + " cannot be listed here; keys are always kept");
                }
            }
            return i;
        }

        private boolean[] mask(Collection<String> columns, String clause) {
            boolean[] m = new boolean[columnNames.size()];
            for (String c : columns) {
                m[valueIndex(c, clause)] = true;
            }
            return m;
        }
    }
}
