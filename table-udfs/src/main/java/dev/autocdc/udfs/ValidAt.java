package dev.autocdc.udfs;

import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.annotation.InputGroup;
import org.apache.flink.table.functions.ScalarFunction;

/**
 * {@code VALID_AT(start, end, at)}: whether a history row's interval holds {@code at}, that is
 * {@code start <= at < coalesce(end, +infinity)} (SPEC §9). Use it on a type 2 table's
 * {@code __START_AT, __END_AT} ("valid at business time B") and on a bitemporal table's
 * {@code __SYSTEM_START_AT, __SYSTEM_END_AT} ("believed at system time S"). The three arguments share a
 * comparable type: numbers, DATE, TIMESTAMP, TIMESTAMP_LTZ, STRING. A null {@code start} or {@code at}
 * gives null.
 *
 * <pre>{@code
 * CREATE FUNCTION VALID_AT AS 'dev.autocdc.udfs.ValidAt';
 * SELECT employeeId, role FROM employees_bitemporal
 * WHERE VALID_AT(__START_AT, __END_AT, DATE '2025-02-15')
 *   AND VALID_AT(__SYSTEM_START_AT, __SYSTEM_END_AT, TIMESTAMP '2025-03-10 00:00:00');
 * }</pre>
 */
public class ValidAt extends ScalarFunction {

    @SuppressWarnings({"unchecked", "rawtypes"})
    public Boolean eval(@DataTypeHint(inputGroup = InputGroup.ANY) Object start,
                        @DataTypeHint(inputGroup = InputGroup.ANY) Object end,
                        @DataTypeHint(inputGroup = InputGroup.ANY) Object at) {
        if (start == null || at == null) {
            return null;
        }
        Comparable s = (Comparable) start;
        return s.compareTo(at) <= 0 && (end == null || ((Comparable) end).compareTo(at) > 0);
    }
}
