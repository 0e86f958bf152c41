package dev.autocdc.udfs;

import java.io.Serializable;
import java.math.BigDecimal;
import java.util.List;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;

/**
 * One side of a test in a {@link DeleteCondition}: an input column or a literal, with the kind of
 * value it yields. Values are read as Java objects of three kinds (a character string as {@link
 * String}, a boolean as {@link Boolean}, any number as {@link BigDecimal}), so that values of one
 * kind compare by value whatever their SQL types. Null is SQL's NULL.
 */
final class ConditionOperand implements Serializable {
    private static final long serialVersionUID = 1L;

    /** What an operand yields; {@link #NULL} is the literal NULL alone. */
    enum Kind {
        STRING,
        BOOLEAN,
        NUMBER,
        NULL
    }

    final Kind kind;

    /** The column's name or the literal's text, for messages. */
    final String label;

    private final Object literal;
    private final int position;
    private final LogicalType type;

    private ConditionOperand(
            Kind kind, String label, Object literal, int position, LogicalType type) {
        this.kind = kind;
        this.label = label;
        this.literal = literal;
        this.position = position;
        this.type = type;
    }

    static ConditionOperand literal(Kind kind, String text, Object value) {
        return new ConditionOperand(kind, text, value, -1, null);
    }

    /**
     * The input column at {@code position}; null when its type is none of the three kinds (the
     * caller refuses it, naming the column).
     */
    static ConditionOperand column(String name, int position, LogicalType type) {
        Kind kind = kindOf(type);
        return kind == null ? null : new ConditionOperand(kind, name, null, position, type);
    }

    private static Kind kindOf(LogicalType type) {
        switch (type.getTypeRoot()) {
            case CHAR:
            case VARCHAR:
                return Kind.STRING;
            case BOOLEAN:
                return Kind.BOOLEAN;
            case TINYINT:
            case SMALLINT:
            case INTEGER:
            case BIGINT:
            case DECIMAL:
            case FLOAT:
            case DOUBLE:
                return Kind.NUMBER;
            default:
                return null;
        }
    }

    /** Whether the two can be compared: the same kind, or one of them the literal NULL. */
    boolean comparableWith(ConditionOperand other) {
        return kind == other.kind || kind == Kind.NULL || other.kind == Kind.NULL;
    }

    /** The operand's value in {@code row}; null for NULL (and for a NaN or infinite number). */
    Object value(RowData row) {
        if (position < 0) {
            return literal;
        }
        if (row.isNullAt(position)) {
            return null;
        }
        switch (type.getTypeRoot()) {
            case CHAR:
            case VARCHAR:
                return row.getString(position).toString();
            case BOOLEAN:
                return row.getBoolean(position);
            case TINYINT:
                return BigDecimal.valueOf(row.getByte(position));
            case SMALLINT:
                return BigDecimal.valueOf(row.getShort(position));
            case INTEGER:
                return BigDecimal.valueOf(row.getInt(position));
            case BIGINT:
                return BigDecimal.valueOf(row.getLong(position));
            case DECIMAL:
                DecimalType d = (DecimalType) type;
                DecimalData v = row.getDecimal(position, d.getPrecision(), d.getScale());
                return v.toBigDecimal();
            case FLOAT:
                return approximate(row.getFloat(position));
            default: // DOUBLE: kindOf admits no other type
                return approximate(row.getDouble(position));
        }
    }

    private static BigDecimal approximate(double d) {
        return Double.isFinite(d) ? new BigDecimal(Double.toString(d)) : null;
    }

    /** SQL's {@code a <op> b} of two values of one kind: null when either is null. */
    @SuppressWarnings("unchecked")
    static Boolean compare(String op, Object a, Object b) {
        if (a == null || b == null) {
            return null;
        }
        int c = ((Comparable<Object>) a).compareTo(b);
        switch (op) {
            case "=":
                return c == 0;
            case "<>":
            case "!=":
                return c != 0;
            case "<":
                return c < 0;
            case "<=":
                return c <= 0;
            case ">":
                return c > 0;
            default: // ">=": the reader admits no other
                return c >= 0;
        }
    }

    /**
     * SQL's {@code v IN (items)}: TRUE if one item equals it; else NULL if it or an item is null;
     * else FALSE.
     */
    static Boolean in(Object v, List<ConditionOperand> items, RowData row) {
        boolean unknown = v == null;
        for (ConditionOperand item : items) {
            Boolean eq = compare("=", v, item.value(row));
            if (Boolean.TRUE.equals(eq)) {
                return true;
            }
            unknown |= eq == null;
        }
        return unknown ? null : false;
    }
}
