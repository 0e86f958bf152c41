package dev.autocdc.udfs;

import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.catalog.DataTypeFactory;
import org.apache.flink.table.functions.ScalarFunction;
import org.apache.flink.table.types.inference.ConstantArgumentCount;
import org.apache.flink.table.types.inference.InputTypeStrategies;
import org.apache.flink.table.types.inference.TypeInference;
import org.apache.flink.table.types.inference.TypeStrategies;
import org.apache.flink.table.types.logical.StructuredType;

/**
 * {@code VALID_AT(start, end, at)}: whether a history row's interval holds {@code at}, that is
 * {@code start <= at < coalesce(end, +infinity)} (SPEC §9). Use it on a type 2 table's
 * {@code __START_AT, __END_AT} ("valid at business time B") and on a bitemporal table's
 * {@code __SYSTEM_START_AT, __SYSTEM_END_AT} ("believed at system time S", also spelled
 * {@link BelievedAt BELIEVED_AT}). The three arguments must be comparable with each other (numbers,
 * DATE, TIMESTAMP, TIMESTAMP_LTZ, STRING, ...): anything else fails at planning time, with Flink's
 * message naming the types. A null {@code start} or {@code at} gives null.
 *
 * <pre>{@code
 * CREATE FUNCTION VALID_AT AS 'dev.autocdc.udfs.ValidAt';
 * SELECT employeeId, role FROM employees_bitemporal
 * WHERE VALID_AT(__START_AT, __END_AT, DATE '2025-02-15')
 *   AND VALID_AT(__SYSTEM_START_AT, __SYSTEM_END_AT, TIMESTAMP '2025-03-10 00:00:00');
 * }</pre>
 */
public class ValidAt extends ScalarFunction {
    private static final long serialVersionUID = 1L;

    public Boolean eval(Object start, Object end, Object at) {
        if (start == null || at == null) {
            return null;
        }
        return holds(start, end, at);
    }

    /** {@code start <= at < coalesce(end, +infinity)}; false when start or at is null. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static boolean holds(Object start, Object end, Object at) {
        if (start == null || at == null) {
            return false;
        }
        return ((Comparable) start).compareTo(at) <= 0 && (end == null || ((Comparable) end).compareTo(at) > 0);
    }

    @Override
    public TypeInference getTypeInference(DataTypeFactory typeFactory) {
        return TypeInference.newBuilder()
                .inputTypeStrategy(InputTypeStrategies.comparable(ConstantArgumentCount.of(3),
                        StructuredType.StructuredComparison.FULL))
                .outputTypeStrategy(TypeStrategies.explicit(DataTypes.BOOLEAN()))
                .build();
    }
}
