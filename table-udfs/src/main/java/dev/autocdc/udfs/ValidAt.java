package dev.autocdc.udfs;

import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.catalog.DataTypeFactory;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.functions.FunctionDefinition;
import org.apache.flink.table.functions.ScalarFunction;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.inference.ArgumentCount;
import org.apache.flink.table.types.inference.CallContext;
import org.apache.flink.table.types.inference.ConstantArgumentCount;
import org.apache.flink.table.types.inference.InputTypeStrategy;
import org.apache.flink.table.types.inference.Signature;
import org.apache.flink.table.types.inference.TypeInference;
import org.apache.flink.table.types.inference.TypeStrategies;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeFamily;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.utils.LogicalTypeCasts;
import org.apache.flink.table.types.logical.utils.LogicalTypeMerging;
import org.apache.flink.table.types.utils.TypeConversions;

/**
 * {@code VALID_AT(start, end, at)}: whether a history row's interval holds {@code at}, that is
 * {@code start <= at < coalesce(end, +infinity)} (semantics §9). Use it on a type 2 table's {@code
 * __START_AT, __END_AT} ("valid at business time B"); {@link BelievedAt BELIEVED_AT} is the same
 * test for a bitemporal table's {@code __SYSTEM_START_AT, __SYSTEM_END_AT} ("believed at system
 * time S").
 *
 * <p>The three arguments are brought to their common type (an INT and a BIGINT compare as BIGINT; a
 * DATE column at a TIMESTAMP compares at midnight); they must be numbers, dates, times, timestamps
 * or strings, and each must convert to the common type implicitly. Anything else fails at planning
 * time, with a message naming the argument and the cast to write; so does a TIMESTAMP column at a
 * DATE, which Flink would compare as DATEs, dropping the time of day. Strings compare by their
 * UTF-8 bytes. A null {@code start} or {@code at} gives null.
 *
 * <pre>{@code
 * SELECT employeeId, role FROM employees_bitemporal
 * WHERE VALID_AT(__START_AT, __END_AT, DATE '2025-02-15')
 *   AND BELIEVED_AT(__SYSTEM_START_AT, __SYSTEM_END_AT, TIMESTAMP '2025-03-10 00:00:00');
 * }</pre>
 */
public class ValidAt extends ScalarFunction {
    private static final long serialVersionUID = 1L;
    private static final List<String> ARGUMENTS = List.of("start", "end", "at");

    public Boolean eval(Object start, Object end, Object at) {
        if (start == null || at == null) {
            return null;
        }
        return holds(start, end, at);
    }

    /** {@code start <= at < coalesce(end, +infinity)}; false when start or at is null. */
    static boolean holds(Object start, Object end, Object at) {
        if (start == null || at == null) {
            return false;
        }
        return compare(start, at) <= 0 && (end == null || compare(end, at) > 0);
    }

    /**
     * Values of one type, ordered as semantics §1 orders them: strings by their UTF-8 bytes (as
     * Flink does).
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static int compare(Object a, Object b) {
        if (a instanceof String && b instanceof String) {
            return StringData.fromString((String) a).compareTo(StringData.fromString((String) b));
        }
        return ((Comparable) a).compareTo(b);
    }

    /** The function's name in messages. */
    String name() {
        return "VALID_AT";
    }

    @Override
    public TypeInference getTypeInference(DataTypeFactory typeFactory) {
        return TypeInference.newBuilder()
                .inputTypeStrategy(new CommonComparableType())
                .outputTypeStrategy(TypeStrategies.explicit(DataTypes.BOOLEAN()))
                .build();
    }

    /**
     * Three arguments of one comparable type: the common type of the three, reached by implicit
     * casts.
     */
    private final class CommonComparableType implements InputTypeStrategy {
        @Override
        public ArgumentCount getArgumentCount() {
            return ConstantArgumentCount.of(3);
        }

        @Override
        public Optional<List<DataType>> inferInputTypes(CallContext call, boolean throwOnFailure) {
            List<DataType> given = call.getArgumentDataTypes();
            List<LogicalType> types = given.stream().map(DataType::getLogicalType).toList();
            for (int i = 0; i < 3; i++) {
                if (!comparable(types.get(i))) {
                    return fail(
                            call,
                            throwOnFailure,
                            "argument "
                                    + ARGUMENTS.get(i)
                                    + " is "
                                    + types.get(i).asSummaryString()
                                    + "; use numbers, DATE, TIME, TIMESTAMP, TIMESTAMP_LTZ or"
                                    + " STRING");
                }
            }
            Optional<LogicalType> common = LogicalTypeMerging.findCommonType(types);
            for (int i = 0; i < 3 && common.isPresent(); i++) {
                LogicalType t = types.get(i);
                if (t.getTypeRoot() != LogicalTypeRoot.NULL
                        && !LogicalTypeCasts.supportsImplicitCast(t, common.get())) {
                    common = Optional.empty();
                }
            }
            LogicalType column =
                    types.stream()
                            .filter(t -> t.getTypeRoot() != LogicalTypeRoot.NULL)
                            .findFirst()
                            .orElse(types.get(0));
            if (common.isEmpty()) {
                return fail(
                        call,
                        throwOnFailure,
                        "arguments start, end and at must have one type, but are "
                                + types.get(0).asSummaryString()
                                + ", "
                                + types.get(1).asSummaryString()
                                + " and "
                                + types.get(2).asSummaryString()
                                + ": cast argument at to the columns' type, e.g. CAST(x AS "
                                + column.copy(true).asSerializableString()
                                + ")");
            }
            if (common.get().getTypeRoot() == LogicalTypeRoot.DATE) {
                // Flink casts a TIMESTAMP to DATE implicitly, which drops the time of day: exact
                // for the point compared with DATE columns (start <= at iff start <= date(at)),
                // wrong for a TIMESTAMP column
                for (int i = 0; i < 2; i++) {
                    if (types.get(i).is(LogicalTypeFamily.TIMESTAMP)) {
                        return fail(
                                call,
                                throwOnFailure,
                                "argument "
                                        + ARGUMENTS.get(i)
                                        + " is "
                                        + types.get(i).asSummaryString()
                                        + " and another is a DATE: comparing as DATE would drop the"
                                        + " time of day; cast the DATE to TIMESTAMP, e.g. CAST(x AS"
                                        + " TIMESTAMP(3))");
                    }
                }
            }
            DataType type = TypeConversions.fromLogicalToDataType(common.get());
            return Optional.of(List.of(type, type, type));
        }

        private Optional<List<DataType>> fail(
                CallContext call, boolean throwOnFailure, String message) {
            if (throwOnFailure) {
                throw call.newValidationError(name() + ": " + message);
            }
            return Optional.empty();
        }

        private boolean comparable(LogicalType t) {
            return t.getTypeRoot() == LogicalTypeRoot.NULL
                    || t.is(LogicalTypeFamily.NUMERIC)
                    || t.is(LogicalTypeFamily.DATETIME)
                    || t.is(LogicalTypeFamily.CHARACTER_STRING);
        }

        @Override
        public List<Signature> getExpectedSignatures(FunctionDefinition definition) {
            return Collections.singletonList(
                    Signature.of(
                            Signature.Argument.of("start", "<COMPARABLE>"),
                            Signature.Argument.of("end", "<COMPARABLE>"),
                            Signature.Argument.of("at", "<COMPARABLE>")));
        }
    }
}
