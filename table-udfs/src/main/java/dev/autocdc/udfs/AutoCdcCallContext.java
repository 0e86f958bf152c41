package dev.autocdc.udfs;

import java.util.List;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.functions.TableSemantics;
import org.apache.flink.table.types.inference.CallContext;
import org.apache.flink.table.types.inference.StaticArgument;
import org.apache.flink.types.ColumnList;

/**
 * What the planner tells about an {@code AUTO_CDC} call while it plans it ({@link CallContext}):
 * its literal arguments ({@link AutoCdcArguments}) and its input table. The same reading serves the
 * output type, where mistakes surface first, and the specialization that the running function is
 * built from. A missing table or a non-literal argument fails naming it. Stateless.
 */
final class AutoCdcCallContext {
    private AutoCdcCallContext() {}

    /** The call's arguments, by the names of the function's static arguments. */
    static AutoCdcArguments arguments(
            String function, CallContext call, List<StaticArgument> statics) {
        return AutoCdcArguments.read(function, (n, c) -> literal(function, call, statics, n, c));
    }

    /** The call's input table. */
    static TableSemantics input(String function, CallContext call) {
        return call.getTableSemantics(0)
                .orElseThrow(
                        () ->
                                AutoCdcPlan.error(
                                        function,
                                        "input",
                                        "must be a table: input => TABLE cdc PARTITION BY id"));
    }

    private static <T> T literal(
            String function,
            CallContext call,
            List<StaticArgument> statics,
            String name,
            Class<T> type) {
        int pos = -1;
        for (int i = 0; i < statics.size(); i++) {
            if (statics.get(i).getName().equals(name)) {
                pos = i;
            }
        }
        if (pos < 0 || pos >= call.getArgumentDataTypes().size() || call.isArgumentNull(pos)) {
            return null;
        }
        if (!call.isArgumentLiteral(pos)) {
            throw AutoCdcPlan.error(
                    function,
                    name,
                    "must be a literal, e.g. "
                            + name
                            + (type == ColumnList.class ? " => DESCRIPTOR(column)" : " => 'text'"));
        }
        return call.getArgumentValue(pos, type)
                .orElseThrow(
                        () ->
                                new ValidationException(
                                        function
                                                + ": argument "
                                                + name
                                                + " must be a "
                                                + type.getSimpleName()));
    }
}
