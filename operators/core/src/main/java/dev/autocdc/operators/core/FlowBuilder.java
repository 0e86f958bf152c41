package dev.autocdc.operators.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Builds a {@link Flow} from the clauses of a flow definition; {@link #build} validates them
 * against semantics §1 and names the clause and the fix of the first invalid one ({@link
 * FlowDefinitionException}). Start one with {@link Flow#builder}.
 */
public final class FlowBuilder {
    // the fields without "private" are read by Flow's constructor
    final String name;
    final TargetType targetType;
    final List<String> columnNames = new ArrayList<>();
    final List<ColumnType> columnTypes = new ArrayList<>();
    private final List<String> keys = new ArrayList<>();
    private final Set<String> sequenceColumns = new LinkedHashSet<>();
    ColumnType sequenceType;
    ColumnType systemSequenceType;
    private boolean ignoreNullUpdates;
    private Collection<String> ignoreNullOn;
    private Collection<String> ignoreNullExcept;
    boolean columnsToUpdate;
    private boolean truncates;
    private Collection<String> trackOn;
    private Collection<String> trackExcept;

    FlowBuilder(String name, TargetType targetType) {
        this.name = name;
        this.targetType = targetType;
    }

    /** Adds a base column of the target (after the COLUMNS projection), in target order. */
    public FlowBuilder column(String columnName, ColumnType type) {
        columnNames.add(columnName);
        columnTypes.add(type);
        return this;
    }

    public FlowBuilder keys(String... keyColumns) {
        keys.addAll(Arrays.asList(keyColumns));
        return this;
    }

    public FlowBuilder keys(Collection<String> keyColumns) {
        keys.addAll(keyColumns);
        return this;
    }

    public FlowBuilder sequenceBy(ColumnType type) {
        this.sequenceType = type;
        return this;
    }

    public FlowBuilder systemSequenceBy(ColumnType type) {
        this.systemSequenceType = type;
        return this;
    }

    /**
     * Base columns that hold the source's sequence (or system sequence) columns kept by COLUMNS.
     */
    public FlowBuilder sequenceColumns(String... columns) {
        sequenceColumns.addAll(Arrays.asList(columns));
        return this;
    }

    public FlowBuilder sequenceColumns(Collection<String> columns) {
        sequenceColumns.addAll(columns);
        return this;
    }

    /** IGNORE NULL UPDATES (all value columns). */
    public FlowBuilder ignoreNullUpdates() {
        this.ignoreNullUpdates = true;
        return this;
    }

    /** IGNORE NULL UPDATES ON (columns). */
    public FlowBuilder ignoreNullUpdatesOn(Collection<String> columns) {
        this.ignoreNullOn = List.copyOf(columns);
        return this;
    }

    /** IGNORE NULL UPDATES ON * EXCEPT (columns). */
    public FlowBuilder ignoreNullUpdatesExcept(Collection<String> columns) {
        this.ignoreNullExcept = List.copyOf(columns);
        return this;
    }

    /** COLUMNS TO UPDATE: each event carries the list of value columns it writes. */
    public FlowBuilder columnsToUpdate() {
        this.columnsToUpdate = true;
        return this;
    }

    /** APPLY AS TRUNCATE WHEN: some events truncate the target (SCD type 1 only). */
    public FlowBuilder applyAsTruncate() {
        this.truncates = true;
        return this;
    }

    /** TRACK HISTORY ON (columns). */
    public FlowBuilder trackHistoryOn(Collection<String> columns) {
        this.trackOn = List.copyOf(columns);
        return this;
    }

    /** TRACK HISTORY ON * EXCEPT (columns). */
    public FlowBuilder trackHistoryExcept(Collection<String> columns) {
        this.trackExcept = List.copyOf(columns);
        return this;
    }

    public Flow build() {
        checkClauses();
        int n = columnNames.size();
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
        boolean[] ignoreNull = ignoreNull(key, sequence);
        boolean[] tracked = tracked(key, sequence);
        return new Flow(this, keyIndexes, key, sequence, ignoreNull, tracked);
    }

    /**
     * The clauses checked before any column: KEYS and SEQUENCE BY given, the sequences' types, and
     * the target types that take APPLY AS TRUNCATE WHEN and SYSTEM SEQUENCE BY.
     */
    private void checkClauses() {
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
    }

    /**
     * IGNORE NULL UPDATES (one of its forms, not with COLUMNS TO UPDATE): the columns where an
     * update's null keeps the value before; never a key or a sequence column.
     */
    private boolean[] ignoreNull(boolean[] key, boolean[] sequence) {
        int n = columnNames.size();
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
        return ignoreNull;
    }

    /**
     * TRACK HISTORY (SCD type 2 and bitemporal only, one of its forms): the columns whose change
     * opens a version; never a key or a sequence column. Without the clause, every other column.
     */
    private boolean[] tracked(boolean[] key, boolean[] sequence) {
        int n = columnNames.size();
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
                        "TRACK HISTORY", "give either ON (list) or ON * EXCEPT (list), not both");
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
        return tracked;
    }

    private int index(String column, String clause) {
        for (int i = 0; i < columnNames.size(); i++) {
            if (columnNames.get(i).equalsIgnoreCase(column)) {
                return i;
            }
        }
        throw new FlowDefinitionException(
                clause, "unknown column " + column + "; the target's columns are " + columnNames);
    }

    private int valueIndex(String column, String clause) {
        int i = index(column, clause);
        for (String k : keys) {
            if (k.equalsIgnoreCase(column)) {
                throw new FlowDefinitionException(
                        clause,
                        "key column " + column + " cannot be listed here; keys are always kept");
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
