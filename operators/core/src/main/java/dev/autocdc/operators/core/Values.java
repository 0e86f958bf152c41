package dev.autocdc.operators.core;

import java.math.BigDecimal;
import java.time.temporal.Temporal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Comparison and equality of column values (see {@link ColumnType} for the Java classes).
 *
 * <p>Equality is SQL's IS NOT DISTINCT FROM: null equals null, NaN equals NaN, DECIMALs equal by
 * value whatever their scale. The order is each type's natural order with nulls first; strings
 * order by their UTF-8 bytes (the same as code point order, and as Flink's binary strings), bytes
 * unsigned, rows and arrays lexicographically. semantics §2 and §6 rely on both.
 */
public final class Values {

    private Values() {}

    /** IS NOT DISTINCT FROM. */
    public static boolean same(Object a, Object b) {
        if (a == b) {
            return true;
        }
        if (a == null || b == null) {
            return false;
        }
        return compare(a, b) == 0;
    }

    /** Whether two rows are equal column by column under {@link #same}. */
    public static boolean sameRow(Object[] a, Object[] b) {
        if (a == b) {
            return true;
        }
        if (a == null || b == null || a.length != b.length) {
            return false;
        }
        for (int i = 0; i < a.length; i++) {
            if (!same(a[i], b[i])) {
                return false;
            }
        }
        return true;
    }

    /** Total order, nulls first. Both values must be of the same column type. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static int compare(Object a, Object b) {
        if (a == b) {
            return 0;
        }
        if (a == null) {
            return -1;
        }
        if (b == null) {
            return 1;
        }
        if (a instanceof String) {
            return compareStrings((String) a, (String) b);
        }
        if (a instanceof Double) {
            double x = (Double) a;
            double y = (Double) b;
            return x == y ? 0 : Double.compare(x, y); // -0.0 equals 0.0 in SQL; NaN equals NaN
        }
        if (a instanceof Float) {
            float x = (Float) a;
            float y = (Float) b;
            return x == y ? 0 : Float.compare(x, y);
        }
        if (a instanceof BigDecimal) {
            return ((BigDecimal) a).compareTo((BigDecimal) b);
        }
        if (a instanceof byte[]) {
            return Arrays.compareUnsigned((byte[]) a, (byte[]) b);
        }
        if (a instanceof Object[]) {
            Object[] x = (Object[]) a;
            Object[] y = (Object[]) b;
            for (int i = 0; i < Math.min(x.length, y.length); i++) {
                int c = compare(x[i], y[i]);
                if (c != 0) {
                    return c;
                }
            }
            return Integer.compare(x.length, y.length);
        }
        if (a instanceof List) {
            Iterator<?> x = ((List<?>) a).iterator();
            Iterator<?> y = ((List<?>) b).iterator();
            while (x.hasNext() && y.hasNext()) {
                int c = compare(x.next(), y.next());
                if (c != 0) {
                    return c;
                }
            }
            return Boolean.compare(x.hasNext(), y.hasNext());
        }
        if (a instanceof Map) {
            return compare(sortedEntries((Map<?, ?>) a), sortedEntries((Map<?, ?>) b));
        }
        if (a instanceof Comparable
                && (a instanceof Number || a instanceof Boolean || a instanceof Temporal)) {
            return ((Comparable) a).compareTo(b);
        }
        throw new IllegalArgumentException("Cannot compare values of " + a.getClass().getName());
    }

    /** Code point order, which equals the order of the UTF-8 encodings. */
    public static int compareStrings(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) {
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Boolean.compare(i < a.length(), j < b.length());
    }

    private static List<Object> sortedEntries(Map<?, ?> map) {
        List<Object[]> entries = new ArrayList<>();
        for (Map.Entry<?, ?> e : map.entrySet()) {
            entries.add(new Object[] {e.getKey(), e.getValue()});
        }
        entries.sort(Values::compare);
        return new ArrayList<>(entries);
    }
}
