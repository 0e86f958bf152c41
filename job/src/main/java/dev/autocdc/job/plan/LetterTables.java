package dev.autocdc.job.plan;

import dev.autocdc.job.flow.FlowSyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeCasts;

/** The check of a flow's dead-letter and late-events tables, when the flow is planned. */
final class LetterTables {
    private LetterTables() {}

    /**
     * A letter table must exist and take {@link FlowJob#LETTER_TABLE}'s columns by position
     * (letters are inserted by position, so the names are free).
     *
     * @param setLines the script line of each key set with SET, for the message
     */
    static void check(
            StreamTableEnvironment tEnv,
            String flow,
            String setting,
            String table,
            Map<String, Integer> setLines) {
        if (table == null) {
            return;
        }
        String key = "autocdc." + flow + "." + setting;
        Integer line = setLines.get(key);
        int at = line == null ? 1 : line;
        ResolvedSchema schema;
        try {
            schema = tEnv.from(FlowPlanner.quoteName(table)).getResolvedSchema();
        } catch (RuntimeException e) {
            throw new FlowSyntaxException(
                    at,
                    "SET",
                    key
                            + " names "
                            + table
                            + ", which is no table; create it first (CREATE TABLE "
                            + table
                            + " ("
                            + letterColumns()
                            + ") WITH (...))");
        }
        RowType expected = (RowType) FlowJob.LETTER_TABLE.getLogicalType();
        List<Column> columns = schema.getColumns().stream().filter(Column::isPhysical).toList();
        boolean fits = columns.size() == expected.getFieldCount();
        for (int i = 0; fits && i < columns.size(); i++) {
            LogicalType to = columns.get(i).getDataType().getLogicalType();
            fits = LogicalTypeCasts.supportsImplicitCast(expected.getTypeAt(i), to.copy(true));
        }
        if (!fits) {
            throw new FlowSyntaxException(
                    at,
                    "SET",
                    key
                            + " names "
                            + table
                            + ", whose columns are "
                            + columns.stream().map(Column::getName).toList()
                            + "; a letter table has the columns "
                            + letterColumns());
        }
    }

    private static String letterColumns() {
        RowType t = (RowType) FlowJob.LETTER_TABLE.getLogicalType();
        List<String> columns = new ArrayList<>();
        for (int i = 0; i < t.getFieldCount(); i++) {
            // quoted: partition, offset and raw are reserved words, and the text is meant to be
            // copied into a CREATE TABLE
            columns.add(
                    FlowPlanner.quote(t.getFieldNames().get(i))
                            + " "
                            + t.getTypeAt(i).asSummaryString());
        }
        return String.join(", ", columns)
                .replace("VARCHAR(2147483647)", "STRING")
                .replace("VARBINARY(2147483647)", "BYTES");
    }
}
