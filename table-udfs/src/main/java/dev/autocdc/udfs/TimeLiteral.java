package dev.autocdc.udfs;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import org.apache.flink.table.types.logical.LogicalType;

/**
 * A point in time written as text, read as a value of a history column's type, so that {@code
 * AS_OF} can take one argument for any business or system time type (a Process Table Function's
 * scalar arguments have fixed types). The text is the SQL literal's body: {@code 2025-02-15} for a
 * DATE, {@code 2025-03-10 00:00:00} (or with a {@code T}, or a date alone for midnight) for a
 * TIMESTAMP, an instant with its offset such as {@code 2025-03-10T00:00:00Z} or {@code 2025-03-10
 * 01:00:00+01:00} for a TIMESTAMP_LTZ (the session's time zone is not known to the function),
 * digits for the integer types, a decimal for DECIMAL, FLOAT and DOUBLE, the text itself for a
 * STRING.
 */
final class TimeLiteral {

    private TimeLiteral() {}

    /**
     * The value, as Flink's default Java class for the type (the class a row's field holds).
     *
     * @throws IllegalArgumentException saying what was expected, when the text does not read as the
     *     type
     */
    static Comparable<?> parse(String text, LogicalType type) {
        String s = text.trim();
        try {
            switch (type.getTypeRoot()) {
                case DATE:
                    return LocalDate.parse(s);
                case TIME_WITHOUT_TIME_ZONE:
                    return LocalTime.parse(s);
                case TIMESTAMP_WITHOUT_TIME_ZONE:
                    return s.length() == 10
                            ? LocalDate.parse(s).atStartOfDay()
                            : LocalDateTime.parse(s.replace(' ', 'T'));
                case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                    // an instant needs its offset: the session's time zone is not known here
                    return OffsetDateTime.parse(s.replace(' ', 'T').replaceFirst("T(?=[Z+-])", ""))
                            .toInstant();
                case TINYINT:
                    return Byte.parseByte(s);
                case SMALLINT:
                    return Short.parseShort(s);
                case INTEGER:
                    return Integer.parseInt(s);
                case BIGINT:
                    return Long.parseLong(s);
                case DECIMAL:
                    return new BigDecimal(s);
                case FLOAT:
                    return Float.parseFloat(s);
                case DOUBLE:
                    return Double.parseDouble(s);
                case CHAR:
                case VARCHAR:
                    return text;
                default:
                    throw new IllegalArgumentException(
                            "a column of type "
                                    + type.asSummaryString()
                                    + " cannot hold a time: use DATE, TIMESTAMP, TIMESTAMP_LTZ, a"
                                    + " number or STRING");
            }
        } catch (NumberFormatException | DateTimeParseException e) {
            throw new IllegalArgumentException(
                    "'"
                            + text
                            + "' does not read as "
                            + type.asSummaryString()
                            + " ("
                            + example(type)
                            + ")");
        }
    }

    private static String example(LogicalType type) {
        switch (type.getTypeRoot()) {
            case DATE:
                return "e.g. '2025-02-15'";
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return "e.g. '2025-03-10 00:00:00'";
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return "an instant with its offset, e.g. '2025-03-10T00:00:00Z'";
            case TIME_WITHOUT_TIME_ZONE:
                return "e.g. '09:30:00'";
            default:
                return "e.g. '42'";
        }
    }
}
