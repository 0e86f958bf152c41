package dev.autocdc.job.source;

import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;

/**
 * The scan of a record's bytes that tells {@link ExactNumbers} whether the record could hold an
 * inexact number, so that most records are not parsed a second time. It may raise a false alarm
 * (the full check then decides) but never spares a record the full check would refuse.
 */
final class NumberPreScan implements Serializable {
    private static final long serialVersionUID = 1L;

    /** The byte that opens a JSON object. */
    private static final byte OBJECT_START = '{';

    /**
     * Whether the checked columns are the keys of one top-level object (the {@code json} format).
     */
    private final boolean topLevelObject;

    /** The longest run of digits every checked column holds whatever the digits (see below). */
    private final int safeDigits;

    /** Per checked column, the longest run of digits it holds whatever the digits. */
    private final int[] columnSafeDigits;

    /** Per checked column, the largest value of an integer type; 0 for DECIMAL. */
    private final long[] columnMax;

    /** The checked columns' names in UTF-8, to find them among a record's keys. */
    private final byte[][] nameBytes;

    /**
     * @param names the checked columns (TINYINT, SMALLINT, INT, BIGINT or DECIMAL)
     * @param types their types
     * @param topLevelObject whether the columns are the keys of one top-level object
     */
    NumberPreScan(String[] names, LogicalType[] types, boolean topLevelObject) {
        this.topLevelObject = topLevelObject;
        int safe = Integer.MAX_VALUE;
        columnSafeDigits = new int[types.length];
        columnMax = new long[types.length];
        nameBytes = new byte[names.length][];
        for (int i = 0; i < types.length; i++) {
            LogicalType t = types[i];
            columnMax[i] =
                    switch (t.getTypeRoot()) {
                        case TINYINT -> Byte.MAX_VALUE;
                        case SMALLINT -> Short.MAX_VALUE;
                        case INTEGER -> Integer.MAX_VALUE;
                        case BIGINT -> Long.MAX_VALUE;
                        default -> 0;
                    };
            columnSafeDigits[i] =
                    switch (t.getTypeRoot()) {
                        case TINYINT -> 2;
                        case SMALLINT -> 4;
                        case INTEGER -> 9;
                        case BIGINT -> 18;
                        default -> ((DecimalType) t).getPrecision() - ((DecimalType) t).getScale();
                    };
            safe = Math.min(safe, columnSafeDigits[i]);
            nameBytes[i] = names[i].getBytes(StandardCharsets.UTF_8);
        }
        this.safeDigits = safe;
    }

    /**
     * Whether the record could hold an inexact number. A number can only be inexact with a point,
     * an exponent, or more digits in a row than its column holds whatever the digits. For the
     * {@code json} format, whose columns are the keys of one top-level object, it reads the
     * object's keys and looks only at the values of checked columns, each against its own column
     * ({@link #mayBeInexactInTopLevelObject}); otherwise, and for records that are not one object,
     * it scans every byte against the narrowest column ({@link #mayBeInexactAnywhere}). Most
     * records are then not parsed a second time; a false alarm only costs the full check.
     */
    boolean mayBeInexact(byte[] record) {
        if (topLevelObject) {
            int first = skipSpace(record, 0);
            if (first < record.length && record[first] == OBJECT_START) {
                return mayBeInexactInTopLevelObject(record, first);
            }
        }
        return mayBeInexactAnywhere(record);
    }

    /**
     * The scan of one top-level object from {@code start} (its brace): true when the value of a
     * checked column is a number or a string with a point, an {@code e} or {@code E}, or more
     * digits in a row than the column holds; or when the record is not what this scan reads (an
     * escape in a key or in a checked column's string, an unterminated string), which the full
     * check then decides. Values nested deeper are not checked ({@link ExactNumbers}), nor are they
     * here.
     */
    private boolean mayBeInexactInTopLevelObject(byte[] r, int start) {
        int depth = 0;
        boolean awaitingKey = false;
        int column = -1; // the checked column whose value comes next, at depth 1
        for (int i = start; i < r.length; i++) {
            byte b = r[i];
            if (b == '"') {
                int end = i + 1;
                boolean escaped = false;
                while (end < r.length && r[end] != '"') {
                    if (r[end] == '\\') {
                        escaped = true;
                        end++;
                    }
                    end++;
                }
                if (end >= r.length) {
                    return true;
                }
                if (depth == 1 && awaitingKey) {
                    if (escaped) {
                        return true;
                    }
                    column = columnNamed(r, i + 1, end);
                    awaitingKey = false;
                } else if (depth == 1 && column >= 0) {
                    if (escaped || suspicious(r, i + 1, end, columnSafeDigits[column])) {
                        return true;
                    }
                    column = -1;
                }
                i = end;
            } else if (b == OBJECT_START || b == '[') {
                depth++;
                awaitingKey = depth == 1;
                if (depth == 2) {
                    column = -1; // a nested value: not checked
                }
            } else if (b == '}' || b == ']') {
                depth--;
            } else if (b == ',' && depth == 1) {
                awaitingKey = true;
                column = -1;
            } else if (depth == 1 && column >= 0 && (b == '-' || (b >= '0' && b <= '9'))) {
                int end = i;
                while (end < r.length && isNumberByte(r[end])) {
                    end++;
                }
                if (suspicious(r, i, end, columnSafeDigits[column])
                        && !integerInRange(r, i, end, columnMax[column])) {
                    return true;
                }
                column = -1;
                i = end - 1;
            }
        }
        return false;
    }

    /** Whether bytes {@code from} to {@code to} hold a point, an exponent or a long digit run. */
    private static boolean suspicious(byte[] r, int from, int to, int safe) {
        int run = 0;
        for (int i = from; i < to; i++) {
            byte b = r[i];
            if (b >= '0' && b <= '9') {
                if (++run > safe) {
                    return true;
                }
            } else {
                if (b == '.' || b == 'e' || b == 'E') {
                    return true;
                }
                run = 0;
            }
        }
        return false;
    }

    /**
     * Whether bytes {@code from} to {@code to} are an integer (an optional minus, then digits)
     * within the range of an integer type whose largest value is {@code max}: such a number is
     * exact, however many digits it has (an 18- or 19-digit id in a BIGINT). False for DECIMAL
     * ({@code max} 0) and for anything else, which the full check then decides.
     */
    private static boolean integerInRange(byte[] r, int from, int to, long max) {
        int i = from;
        boolean negative = i < to && r[i] == '-';
        if (negative) {
            i++;
        }
        if (max == 0 || i == to || to - i > 19) {
            return false;
        }
        long value = 0; // as a negative number, which holds Long.MIN_VALUE
        for (; i < to; i++) {
            int digit = r[i] - '0';
            if (digit < 0 || digit > 9 || value < (Long.MIN_VALUE + digit) / 10) {
                return false;
            }
            value = value * 10 - digit;
        }
        return negative ? value >= -max - 1 : value >= -max;
    }

    private static boolean isNumberByte(byte b) {
        return (b >= '0' && b <= '9') || b == '-' || b == '+' || b == '.' || b == 'e' || b == 'E';
    }

    /** The index of the checked column named by the key bytes {@code from} to {@code to}, or -1. */
    private int columnNamed(byte[] r, int from, int to) {
        for (int c = 0; c < nameBytes.length; c++) {
            if (Arrays.equals(nameBytes[c], 0, nameBytes[c].length, r, from, to)) {
                return c;
            }
        }
        return -1;
    }

    private static int skipSpace(byte[] r, int i) {
        while (i < r.length && (r[i] == ' ' || r[i] == '\n' || r[i] == '\r' || r[i] == '\t')) {
            i++;
        }
        return i;
    }

    /**
     * The scan of any record against the narrowest checked column ({@code safeDigits}): a point, an
     * exponent (an {@code e} right after a digit) or a long digit run anywhere, strings included.
     */
    boolean mayBeInexactAnywhere(byte[] record) {
        int run = 0;
        for (byte b : record) {
            if (b >= '0' && b <= '9') {
                if (++run > safeDigits) {
                    return true;
                }
            } else {
                if (b == '.' || ((b == 'e' || b == 'E') && run > 0)) {
                    return true; // a point, or an exponent right after a digit
                }
                run = 0;
            }
        }
        return false;
    }
}
