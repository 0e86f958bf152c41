package dev.autocdc.job.plan;

import dev.autocdc.job.flow.FlowSyntaxException;
import dev.autocdc.operators.core.AutoCdcFlow;
import dev.autocdc.operators.flink.spec.ControlColumn;
import dev.autocdc.operators.flink.spec.EngineSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.conversion.DataStructureConverter;
import org.apache.flink.table.data.conversion.DataStructureConverters;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.utils.TypeConversions;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;

/**
 * A flow's erasures ({@code autocdc.<flow>.erasures-table}): the rows of a declared table, read by
 * the flow's key columns (by name), become engine input rows with {@link ControlColumn#ERASE} set,
 * in the flow's input stream, so that each erases its key in the running job ({@code -D} of every
 * row the key's state holds, the state cleared). An erasure acts when it is processed: it removes
 * what the key has then, and a later event of the key starts a new history.
 */
final class Erasures {
    /** The uid of the step that turns erasures into engine input (part of the savepoint format). */
    static String uid(String flow) {
        return "auto-cdc-erasures-" + flow;
    }

    private Erasures() {}

    /**
     * Refuses a table that does not exist or lacks a key column, naming the setting's line.
     *
     * @param setLines the script line of each key set with SET, for the message
     */
    static void check(
            StreamTableEnvironment tEnv,
            AutoCdcFlow flow,
            String table,
            EngineSpec spec,
            Map<String, Integer> setLines) {
        String key = TargetOptions.PREFIX + flow.name() + "." + TargetOptions.ERASURES_TABLE.key();
        Integer line = setLines.get(key);
        try {
            tEnv.sqlQuery(select(spec, table));
        } catch (RuntimeException e) {
            throw new FlowSyntaxException(
                    line == null ? flow.line() : line,
                    "SET",
                    key
                            + " names "
                            + table
                            + ", which Flink cannot read the flow's key columns "
                            + keys(spec)
                            + " from: "
                            + FlowPlanner.rootMessage(e)
                            + "; declare it with those columns (CREATE TABLE "
                            + table
                            + " ("
                            + String.join(" ..., ", keys(spec))
                            + " ...) WITH (...))");
        }
    }

    /** The flow's erasures as engine input rows. */
    static DataStream<RowData> stream(StreamTableEnvironment tEnv, PlannedFlow flow) {
        EngineSpec spec = flow.spec();
        String name = flow.flow().name();
        DataStream<Row> keys =
                tEnv.toChangelogStream(tEnv.sqlQuery(select(spec, flow.erasuresTable())));
        DataStream<RowData> rows =
                keys.flatMap(new ToInput(spec))
                        .returns(InternalTypeInfo.of(spec.inputType()))
                        .name("erasures of " + name)
                        .uid(uid(name));
        StableUids.ofInput(rows, name + "-erasures", null);
        return rows;
    }

    /** {@code SELECT <key columns, in the flow's types> FROM table}. */
    private static String select(EngineSpec spec, String table) {
        List<String> columns = new ArrayList<>();
        int[] keyIndexes = spec.flow().keyIndexes();
        for (int k : keyIndexes) {
            String column = spec.flow().columnNames().get(k);
            columns.add(
                    "CAST("
                            + FlowPlanner.quote(column)
                            + " AS "
                            + spec.targetType().getTypeAt(k).copy(true).asSerializableString()
                            + ") AS "
                            + FlowPlanner.quote(column));
        }
        return "SELECT " + String.join(", ", columns) + " FROM " + FlowPlanner.quoteName(table);
    }

    private static List<String> keys(EngineSpec spec) {
        List<String> keys = new ArrayList<>();
        for (int k : spec.flow().keyIndexes()) {
            keys.add(spec.flow().columnNames().get(k));
        }
        return keys;
    }

    /** A row of key values to an engine input row that erases that key. */
    private static final class ToInput implements FlatMapFunction<Row, RowData> {
        private final EngineSpec spec;
        private transient DataStructureConverter<Object, Object> converter;

        ToInput(EngineSpec spec) {
            this.spec = spec;
        }

        @Override
        public void flatMap(Row keys, Collector<RowData> out) {
            if (keys.getKind() == RowKind.UPDATE_BEFORE || keys.getKind() == RowKind.DELETE) {
                return; // a changelog table's retraction asks for nothing
            }
            if (converter == null) {
                List<DataType> types = new ArrayList<>();
                for (int k : spec.flow().keyIndexes()) {
                    types.add(
                            TypeConversions.fromLogicalToDataType(
                                    spec.targetType().getTypeAt(k).copy(true)));
                }
                converter =
                        DataStructureConverters.getConverter(
                                DataTypes.ROW(types.toArray(new DataType[0])));
                converter.open(getClass().getClassLoader());
            }
            Row plain = Row.of(new Object[keys.getArity()]);
            for (int i = 0; i < keys.getArity(); i++) {
                plain.setField(i, keys.getField(i));
            }
            GenericRowData internal = (GenericRowData) converter.toInternal(plain);
            GenericRowData row = new GenericRowData(spec.inputType().getFieldCount());
            int[] keyIndexes = spec.flow().keyIndexes();
            for (int i = 0; i < keyIndexes.length; i++) {
                row.setField(spec.baseFields()[keyIndexes[i]], internal.getField(i));
            }
            row.setField(spec.field(ControlColumn.ERASE), true);
            out.collect(row);
        }
    }
}
