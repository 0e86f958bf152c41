package dev.autocdc.operators.core;

import java.io.Serializable;
import java.util.List;

/**
 * One AUTO CDC flow as the engine sees it, after the COLUMNS projection: the target's base columns
 * (keys and values, in target order), which are keys, which hold a sequence, and the options of
 * semantics §1 that change the fold or the history. Immutable; build it with {@link #builder},
 * which rejects the invalid combinations of semantics §1 with a {@link FlowDefinitionException}
 * naming the clause.
 *
 * <p>The sequence itself is not a base column: it is carried by each event (and kept in the target
 * only when COLUMNS keeps its source columns, which {@link FlowBuilder#sequenceColumns} marks).
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

    Flow(
            FlowBuilder b,
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

    public static FlowBuilder builder(String name, TargetType targetType) {
        return new FlowBuilder(name, targetType);
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
}
