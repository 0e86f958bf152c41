package dev.autocdc.udfs;

import java.util.List;
import java.util.Optional;
import org.apache.flink.table.annotation.ArgumentHint;
import org.apache.flink.table.annotation.ArgumentTrait;
import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.annotation.InputGroup;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.DataTypeFactory;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.functions.ChangelogFunction;
import org.apache.flink.table.functions.ProcessTableFunction;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.inference.CallContext;
import org.apache.flink.table.types.inference.TypeInference;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.utils.LogicalTypeCasts;
import org.apache.flink.table.types.utils.DataTypeUtils;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

/**
 * {@code AS_OF(input => TABLE history, business_time => B [, system_time => S])}: the rows of a type 2
 * or bitemporal history table that are valid at business time {@code B} and, for bitemporal tables
 * when {@code system_time} is given, believed at system time {@code S} (SPEC §9):
 * {@code __START_AT <= B < coalesce(__END_AT, +inf)} and
 * {@code __SYSTEM_START_AT <= S < coalesce(__SYSTEM_END_AT, +inf)}. The output has the input's columns.
 *
 * <p>The input may be bounded (the answer is final) or a changelog, such as the history read back from
 * upsert-kafka: a row that stops qualifying, or is retracted, is retracted from the answer, and an
 * update that makes a row qualify inserts it. The function keeps no state: every input change maps to
 * at most one output change ({@code +I} or {@code -D}), so the answer is correct at every point of the
 * input's changelog.
 *
 * <p>Planning fails, naming the argument, when the input lacks {@code __START_AT} / {@code __END_AT}
 * (or the system columns when {@code system_time} is given), or when a time argument's type is not
 * the type of the column it is compared with (cast it, e.g. {@code CAST(... AS DATE)}).
 */
@DataTypeHint("ROW<unused INT>") // replaced by the input's row type, see getTypeInference
public class AsOf extends ProcessTableFunction<Row> implements ChangelogFunction {
    private static final long serialVersionUID = 1L;

    public void eval(
            @ArgumentHint(value = {ArgumentTrait.ROW_SEMANTIC_TABLE, ArgumentTrait.SUPPORT_UPDATES,
                ArgumentTrait.REQUIRE_UPDATE_BEFORE}, name = "input") Row input,
            @ArgumentHint(name = "business_time", type = @DataTypeHint(inputGroup = InputGroup.ANY)) Object businessTime,
            @ArgumentHint(name = "system_time", isOptional = true, type = @DataTypeHint(inputGroup = InputGroup.ANY))
            Object systemTime) {
        if (businessTime == null) {
            return;
        }
        if (!ValidAt.holds(input.getField("__START_AT"), input.getField("__END_AT"), businessTime)) {
            return;
        }
        if (systemTime != null
                && !ValidAt.holds(input.getField("__SYSTEM_START_AT"), input.getField("__SYSTEM_END_AT"), systemTime)) {
            return;
        }
        Row out = Row.copy(input);
        RowKind kind = input.getKind();
        out.setKind(kind == RowKind.INSERT || kind == RowKind.UPDATE_AFTER ? RowKind.INSERT : RowKind.DELETE);
        collect(out);
    }

    @Override
    public ChangelogMode getChangelogMode(ChangelogContext context) {
        if (context.getTableChangelogMode(0).containsOnly(RowKind.INSERT)) {
            return ChangelogMode.insertOnly();
        }
        return ChangelogMode.newBuilder().addContainedKind(RowKind.INSERT).addContainedKind(RowKind.DELETE).build();
    }

    @Override
    public TypeInference getTypeInference(DataTypeFactory typeFactory) {
        TypeInference extracted = super.getTypeInference(typeFactory);
        return TypeInference.newBuilder()
                .staticArguments(extracted.getStaticArguments().orElseThrow())
                .inputTypeStrategy(extracted.getInputTypeStrategy())
                .stateTypeStrategies(extracted.getStateTypeStrategies())
                .outputTypeStrategy(AsOf::outputType)
                .build();
    }

    /** The input's row type, after checking the columns and the time arguments. */
    private static Optional<DataType> outputType(CallContext call) {
        DataType input = call.getArgumentDataTypes().get(0);
        List<String> names = DataTypeUtils.flattenToNames(input);
        List<DataType> types = DataTypeUtils.flattenToDataTypes(input);
        check(call, names, types, 1, "business_time", "__START_AT", "__END_AT");
        if (call.getArgumentDataTypes().size() > 2 && !call.isArgumentNull(2)) {
            check(call, names, types, 2, "system_time", "__SYSTEM_START_AT", "__SYSTEM_END_AT");
        }
        return Optional.of(input);
    }

    private static void check(CallContext call, List<String> names, List<DataType> types, int argument, String name,
                              String start, String end) {
        int s = names.indexOf(start);
        if (s < 0 || !names.contains(end)) {
            throw new ValidationException("AS_OF: the input has no " + start + " / " + end + " columns, which "
                    + name + " is compared with: pass a type 2 or bitemporal history table (columns " + names + ")");
        }
        LogicalType column = types.get(s).getLogicalType();
        LogicalType given = call.getArgumentDataTypes().get(argument).getLogicalType();
        if (!LogicalTypeCasts.supportsImplicitCast(given, column) || given.getTypeRoot() != column.getTypeRoot()) {
            throw new ValidationException("AS_OF: " + name + " is " + given.asSummaryString() + " but the input's "
                    + start + " is " + column.asSummaryString() + ": pass a " + column.getTypeRoot()
                    + " value, e.g. CAST(... AS " + column.asSerializableString() + ")");
        }
    }
}
