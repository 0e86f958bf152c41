package dev.autocdc.job.source;

import java.math.BigDecimal;
import java.math.BigInteger;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;

/**
 * Whether a column's type holds a JSON value exactly, as Flink's JSON formats would read it
 * (semantics §11). A number, or a string that parses as one (Flink reads {@code "42"} as 42), is
 * inexact when:
 *
 * <ul>
 *   <li>TINYINT, SMALLINT, INT, BIGINT: it has a fraction ({@code 22.7}; {@code 22.0} is 22), or is
 *       outside the type's range; BIGINT also past 2^53 when written with a point or an exponent
 *       (Flink reads those through a double);
 *   <li>DECIMAL(p, s): it has more than s digits after the point (it would be rounded), or more
 *       than p - s before it (it would become null).
 * </ul>
 *
 * Any other value fits: a null, a string that is no number (the format's own parse error), and any
 * value of another type (FLOAT and DOUBLE are approximate by definition).
 */
final class ExactFit {
    private ExactFit() {}

    /** Why a JSON value does not fit the type exactly, or null when it does. */
    static String problem(JsonNode value, LogicalType type) {
        if (value == null || value.isNull()) {
            return null;
        }
        BigDecimal v;
        if (value.isNumber()) {
            v = value.decimalValue();
        } else if (value.isTextual()) {
            try {
                v = new BigDecimal(value.asText().trim());
            } catch (NumberFormatException e) {
                return null; // not a number: the format's own parse error
            }
        } else {
            return null;
        }
        switch (type.getTypeRoot()) {
            case TINYINT:
                return integral(v, BigInteger.valueOf(Byte.MIN_VALUE), BigInteger.valueOf(127));
            case SMALLINT:
                return integral(v, BigInteger.valueOf(Short.MIN_VALUE), BigInteger.valueOf(32767));
            case INTEGER:
                return integral(
                        v,
                        BigInteger.valueOf(Integer.MIN_VALUE),
                        BigInteger.valueOf(Integer.MAX_VALUE));
            case BIGINT:
                {
                    String outside =
                            integral(
                                    v,
                                    BigInteger.valueOf(Long.MIN_VALUE),
                                    BigInteger.valueOf(Long.MAX_VALUE));
                    if (outside == null
                            && value.isFloatingPointNumber()
                            && v.abs().compareTo(BigDecimal.valueOf(1L << 53)) > 0) {
                        // Flink reads a number written with a point or exponent through a double
                        return "past 2^53 with a point or an exponent it is read through a double";
                    }
                    return outside;
                }
            case DECIMAL:
                {
                    DecimalType d = (DecimalType) type;
                    BigDecimal stripped = v.stripTrailingZeros();
                    if (stripped.scale() > d.getScale()) {
                        return "it has more than " + d.getScale() + " digits after the point";
                    }
                    if (stripped.precision() - stripped.scale() > d.getPrecision() - d.getScale()) {
                        return "it has more than "
                                + (d.getPrecision() - d.getScale())
                                + " digits before the point";
                    }
                    return null;
                }
            default:
                return null;
        }
    }

    private static String integral(BigDecimal v, BigInteger min, BigInteger max) {
        if (v.precision() - v.scale() > 20) { // more digits than any BIGINT, even 1e1000000
            return "it is outside " + min + " to " + max;
        }
        BigInteger whole;
        try {
            whole = v.toBigIntegerExact();
        } catch (ArithmeticException e) {
            return "it has a fraction";
        }
        if (whole.compareTo(min) < 0 || whole.compareTo(max) > 0) {
            return "it is outside " + min + " to " + max;
        }
        return null;
    }
}
