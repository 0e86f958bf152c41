package dev.autocdc.udfs;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.flink.table.annotation.ArgumentHint;
import org.apache.flink.table.annotation.ArgumentTrait;
import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.DataTypeFactory;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.functions.ChangelogFunction;
import org.apache.flink.table.functions.ProcessTableFunction;
import org.apache.flink.table.functions.TableSemantics;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.inference.CallContext;
import org.apache.flink.table.types.inference.TypeInference;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.utils.DataTypeUtils;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

/**
 * {@code AS_OF(input => TABLE history [, business_time => 'B'] [, believed_at => 'S'])}: the rows
 * of a type 2 or bitemporal history table valid at business time B and, on a bitemporal table,
 * believed at system time S (semantics §9): {@code __START_AT <= B < coalesce(__END_AT, +inf)} and
 * {@code __SYSTEM_START_AT <= S < coalesce(__SYSTEM_END_AT, +inf)}. Without {@code business_time},
 * every version (the business-time history); without {@code believed_at}, a bitemporal table
 * answers with what is believed now ({@code __SYSTEM_END_AT IS NULL}). The output has the input's
 * columns.
 *
 * <p>Times are text in the column's SQL literal form ({@code '2025-02-15'} for a DATE column,
 * {@code '2025-03-10 00:00:00'} for a TIMESTAMP, {@code '5'} for an INT; see {@link TimeLiteral}):
 * a Process Table Function's scalar arguments have one fixed type, and history columns come in
 * many. Planning fails, naming the argument, when the input lacks the columns or the text does not
 * read as the column's type.
 *
 * <p>The input is read as a set ({@code TABLE t}, one instance) or partitioned ({@code TABLE t
 * PARTITION BY key}, parallel); Flink puts the PARTITION BY columns first in the output. The input
 * may be bounded (the answer is final) or a changelog, such as the history read back from
 * upsert-kafka: a row that stops qualifying, or is retracted, is retracted from the answer ({@code
 * -D}), and an update that makes a row qualify inserts it ({@code +I}). The function keeps no
 * state: each input change becomes at most one output change, so the answer is right at every point
 * of the input's changelog.
 */
@DataTypeHint("ROW<unused INT>") // replaced by the input's row type, see getTypeInference
public class AsOf extends ProcessTableFunction<Row> implements ChangelogFunction {
    private static final long serialVersionUID = 1L;

    private transient String parsedFor;
    private transient Object business;
    private transient Object believed;
    private transient boolean bitemporal;
    private transient int[] partitionBy;

    public void eval(
            Context ctx,
            @ArgumentHint(
                            value = {
                                ArgumentTrait.SET_SEMANTIC_TABLE,
                                ArgumentTrait.OPTIONAL_PARTITION_BY,
                                ArgumentTrait.SUPPORT_UPDATES,
                                ArgumentTrait.REQUIRE_UPDATE_BEFORE,
                                ArgumentTrait.REQUIRE_FULL_DELETE
                            },
                            name = "input")
                    Row input,
            @ArgumentHint(name = "business_time", isOptional = true) String businessTime,
            @ArgumentHint(name = "believed_at", isOptional = true) String believedAt) {
        String key = businessTime + '\u0000' + believedAt;
        if (!key.equals(parsedFor)) {
            DataType type = ctx.tableSemanticsFor("input").dataType();
            List<String> names = DataTypeUtils.flattenToNames(type);
            List<DataType> types = DataTypeUtils.flattenToDataTypes(type);
            business =
                    businessTime == null
                            ? null
                            : TimeLiteral.parse(
                                    businessTime,
                                    types.get(names.indexOf("__START_AT")).getLogicalType());
            int system = names.indexOf("__SYSTEM_START_AT");
            bitemporal = system >= 0;
            believed =
                    believedAt == null
                            ? null
                            : TimeLiteral.parse(believedAt, types.get(system).getLogicalType());
            partitionBy = ctx.tableSemanticsFor("input").partitionByColumns();
            parsedFor = key;
        }
        if (business != null
                && !ValidAt.holds(
                        input.getField("__START_AT"), input.getField("__END_AT"), business)) {
            return;
        }
        if (bitemporal) {
            Object end = input.getField("__SYSTEM_END_AT");
            boolean believedThen =
                    believed == null
                            ? end == null
                            : ValidAt.holds(input.getField("__SYSTEM_START_AT"), end, believed);
            if (!believedThen) {
                return;
            }
        }
        Row out = Row.withPositions(input.getArity() - partitionBy.length);
        int f = 0;
        for (int i = 0; i < input.getArity(); i++) {
            if (!isPartitionColumn(i)) {
                out.setField(f++, input.getField(i));
            }
        }
        RowKind kind = input.getKind();
        out.setKind(
                kind == RowKind.INSERT || kind == RowKind.UPDATE_AFTER
                        ? RowKind.INSERT
                        : RowKind.DELETE);
        collect(out);
    }

    private boolean isPartitionColumn(int pos) {
        for (int p : partitionBy) {
            if (p == pos) {
                return true;
            }
        }
        return false;
    }

    @Override
    public ChangelogMode getChangelogMode(ChangelogContext context) {
        if (context.getTableChangelogMode(0).containsOnly(RowKind.INSERT)) {
            return ChangelogMode.insertOnly();
        }
        return ChangelogMode.newBuilder()
                .addContainedKind(RowKind.INSERT)
                .addContainedKind(RowKind.DELETE)
                .build();
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
        if (call.getArgumentDataTypes().size() > 1 && !call.isArgumentNull(1)) {
            check(call, names, types, 1, "business_time", "__START_AT", "__END_AT");
        } else if (!names.contains("__START_AT") || !names.contains("__END_AT")) {
            throw new ValidationException(
                    "AS_OF: the input has no __START_AT / __END_AT columns: pass a type 2 or"
                            + " bitemporal history table (the input has "
                            + names
                            + ")");
        }
        if (call.getArgumentDataTypes().size() > 2 && !call.isArgumentNull(2)) {
            check(call, names, types, 2, "believed_at", "__SYSTEM_START_AT", "__SYSTEM_END_AT");
        }
        int[] partitionBy =
                call.getTableSemantics(0)
                        .map(TableSemantics::partitionByColumns)
                        .orElse(new int[0]);
        List<DataTypes.Field> fields = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            int pos = i;
            if (Arrays.stream(partitionBy).noneMatch(p -> p == pos)) {
                fields.add(DataTypes.FIELD(names.get(i), types.get(i)));
            }
        }
        return Optional.of(DataTypes.ROW(fields));
    }

    private static void check(
            CallContext call,
            List<String> names,
            List<DataType> types,
            int argument,
            String name,
            String start,
            String end) {
        int s = names.indexOf(start);
        if (s < 0 || !names.contains(end)) {
            throw new ValidationException(
                    "AS_OF: argument "
                            + name
                            + " is compared with "
                            + start
                            + " / "
                            + end
                            + ", which the input lacks: pass a "
                            + (argument == 1 ? "type 2 or bitemporal" : "bitemporal")
                            + " history table (the input has "
                            + names
                            + ")");
        }
        if (!call.isArgumentLiteral(argument)) {
            throw new ValidationException(
                    "AS_OF: argument "
                            + name
                            + " must be a literal, e.g. "
                            + name
                            + " => '2025-02-15'");
        }
        String text = call.getArgumentValue(argument, String.class).orElseThrow();
        LogicalType column = types.get(s).getLogicalType();
        try {
            TimeLiteral.parse(text, column);
        } catch (IllegalArgumentException e) {
            throw new ValidationException(
                    "AS_OF: argument "
                            + name
                            + " is compared with "
                            + start
                            + ": "
                            + e.getMessage());
        }
    }
}
