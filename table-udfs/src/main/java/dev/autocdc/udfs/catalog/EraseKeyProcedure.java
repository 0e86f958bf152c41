package dev.autocdc.udfs.catalog;

import dev.autocdc.job.plan.ErasureInsert;
import dev.autocdc.job.plan.FlowPlanner;
import dev.autocdc.job.plan.PlannedFlow;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonProcessingException;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.DeserializationFeature;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.procedure.ProcedureContext;
import org.apache.flink.table.procedures.Procedure;

/**
 * {@code CALL autocdc.sys.erase_key('<flow text or file>', '<flow>', '<key>')}: writes one key into
 * the flow's erasures table ({@code autocdc.<flow>.erasures-table}) from the session, for the
 * running flow to erase (docs/operations.md#erase-a-key), and returns what it wrote once the write
 * is done. The key is a JSON object of the key columns' values ({@code {"userId": 42}}) or, for a
 * key of one column, its value alone ({@code 42}). A flow that is not in the file or has no
 * erasures table, and a key that lacks a key column or names another, are refused naming the fix.
 */
public final class EraseKeyProcedure implements Procedure {
    public static final String NAME = "erase_key";

    private static final ObjectMapper JSON =
            new ObjectMapper()
                    .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                    .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS);

    public String[] call(ProcedureContext context, String flow, String flowName, String key)
            throws Exception {
        if (flow == null || flowName == null || key == null) {
            throw new IllegalArgumentException(
                    "erase_key takes the flow, the flow's name and the key; one of them is NULL");
        }
        StreamTableEnvironment tEnv =
                StreamTableEnvironment.create(context.getExecutionEnvironment());
        List<PlannedFlow> flows = new FlowPlanner(tEnv, false).plan(FlowText.script(flow));
        PlannedFlow planned =
                flows.stream()
                        .filter(f -> f.flow().name().equals(flowName))
                        .findFirst()
                        .orElseThrow(
                                () ->
                                        new IllegalArgumentException(
                                                "no flow "
                                                        + flowName
                                                        + " in the flow file; its flows are "
                                                        + flows.stream()
                                                                .map(f -> f.flow().name())
                                                                .toList()));
        String insert = ErasureInsert.of(planned, values(planned, key));
        TableResult result = tEnv.executeSql(insert);
        result.await();
        String job = result.getJobClient().map(JobClient::getJobID).map(String::valueOf).orElse("");
        return new String[] {
            "erasure of " + key.strip() + " written for flow " + flowName + " (job " + job + ")",
            "the running flow erases the key when it reads the row: " + insert
        };
    }

    /**
     * The key's values by column: a JSON object of scalars, or one value for a key of one column (a
     * JSON string's quotes are taken off).
     */
    private static Map<String, Object> values(PlannedFlow flow, String key) {
        String text = key.strip();
        int[] keys = flow.spec().flow().keyIndexes();
        List<String> columns = flow.spec().flow().columnNames();
        if (!text.startsWith("{") && keys.length == 1) {
            Map<String, Object> one = new LinkedHashMap<>();
            one.put(columns.get(keys[0]), text.startsWith("\"") ? parse(text, String.class) : text);
            return one;
        }
        StringBuilder example = new StringBuilder("{");
        for (int k : keys) {
            example.append(example.length() > 1 ? ", " : "")
                    .append('"')
                    .append(columns.get(k))
                    .append("\": ...");
        }
        example.append('}');
        if (!text.startsWith("{")) {
            throw new IllegalArgumentException(
                    "flow "
                            + flow.flow().name()
                            + " has a key of "
                            + keys.length
                            + " columns: give their values as JSON, "
                            + example);
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> values = parse(text, LinkedHashMap.class);
        for (Map.Entry<String, Object> e : values.entrySet()) {
            Object v = e.getValue();
            if (v == null || v instanceof Map || v instanceof List) {
                throw new IllegalArgumentException(
                        "erase_key's key gives "
                                + e.getKey()
                                + " "
                                + (v == null ? "null" : "a nested value")
                                + "; a key column takes a string, a number or a boolean: "
                                + example);
            }
        }
        return values;
    }

    private static <T> T parse(String json, Class<T> type) {
        try {
            return JSON.readValue(json, type);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(
                    "erase_key's key "
                            + json
                            + " is not JSON ("
                            + e.getOriginalMessage()
                            + "); write '{\"userId\": 42}', or '42' for a key of one column",
                    e);
        }
    }
}
