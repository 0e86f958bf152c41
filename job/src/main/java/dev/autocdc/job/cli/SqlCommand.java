package dev.autocdc.job.cli;

import dev.autocdc.job.flow.ScriptSplitter;
import dev.autocdc.job.flow.SetStatement;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.ResultKind;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.internal.TableResultInternal;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.utils.print.PrintStyle;
import org.apache.flink.util.CloseableIterator;

/**
 * {@code autocdc sql --flow FILE.sql}: runs a Flink SQL script as the SQL client would, to ask a
 * target's history (docs/targets.md): catalogs, tables, SET, SELECT and INSERT, in order, in batch
 * mode unless a {@code -D} or a SET before the script's other statements sets {@code
 * execution.runtime-mode}. Each SELECT (and SHOW, DESCRIBE, EXPLAIN) prints its whole result as a
 * table on the standard output, with its row count (use LIMIT for a large one); an INSERT waits for
 * its job. A statement Flink cannot run stops the script, naming its line; the flow language's own
 * statements are refused, naming {@code run}.
 */
final class SqlCommand {
    /** The flow language's statements, which {@code run} and {@code validate} take. */
    private static final Pattern FLOW_STATEMENT =
            Pattern.compile(
                    "^\\s*CREATE\\s+(OR\\s+REFRESH\\s+STREAMING\\s+TABLE|FLOW)\\b",
                    Pattern.CASE_INSENSITIVE);

    private static final Pattern INSERT =
            Pattern.compile("^\\s*(INSERT|EXECUTE)\\b", Pattern.CASE_INSENSITIVE);

    private final PrintStream out;
    private final PrintStream err;

    SqlCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    /**
     * Runs {@code script}, read from {@code file} (for messages), under {@code conf}.
     *
     * @return the exit code: 0, or 1 when a statement failed
     */
    int run(String file, String script, Configuration conf) {
        List<ScriptSplitter.Statement> statements = ScriptSplitter.split(script);
        if (statements.isEmpty()) {
            err.println("autocdc: " + file + " has no statement");
            return 1;
        }
        TableEnvironment tEnv = null; // made at the first statement that is not a SET
        for (ScriptSplitter.Statement s : statements) {
            String text = ScriptSplitter.stripComments(s.text()).strip();
            SetStatement set = SetStatement.parse(text);
            String refused = refusal(text, set, tEnv != null);
            if (refused != null) {
                err.println("autocdc: " + file + ", line " + s.line() + ": " + refused);
                return 1;
            }
            if (set != null) {
                // before the environment exists, a SET may choose its runtime mode
                (tEnv == null ? conf : tEnv.getConfig().getConfiguration())
                        .setString(set.key(), set.value());
                continue;
            }
            if (tEnv == null) {
                tEnv = environment(conf);
            }
            try {
                show(s.text(), tEnv.executeSql(s.text()));
            } catch (Exception e) {
                err.println(
                        "autocdc: "
                                + file
                                + ", line "
                                + s.line()
                                + ": Flink could not run the statement: "
                                + ErrorMessages.root(e));
                return 1;
            }
        }
        return 0;
    }

    /**
     * Why the statement {@code text} (without comments; {@code set}, its SET if it is one) cannot
     * run here, or null: a flow statement, a SET of another form than {@code SET 'key' = 'value'},
     * or the runtime mode set after a statement that is not a SET ({@code started}), when Flink has
     * fixed it.
     */
    private static String refusal(String text, SetStatement set, boolean started) {
        if (FLOW_STATEMENT.matcher(text).find()) {
            return "an AUTO CDC statement; sql runs Flink SQL only: run flows with autocdc run"
                    + " --flow FILE.sql";
        }
        if (set == null) {
            return SetStatement.startsWithSet(text) ? "write SET 'key' = 'value'" : null;
        }
        if (started && set.key().equals(ExecutionOptions.RUNTIME_MODE.key())) {
            return "SET '"
                    + set.key()
                    + "' must come before the script's other statements: the mode is fixed when"
                    + " the first of them runs";
        }
        return null;
    }

    /** The script's environment, in batch mode unless {@code conf} sets a runtime mode. */
    private static TableEnvironment environment(Configuration conf) {
        if (!conf.contains(ExecutionOptions.RUNTIME_MODE)) {
            conf.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.BATCH);
        }
        return TableEnvironment.create(
                EnvironmentSettings.newInstance().withConfiguration(conf).build());
    }

    /** An INSERT's job, awaited; a result with rows, as a table. */
    private void show(String statement, TableResult result) throws Exception {
        if (INSERT.matcher(ScriptSplitter.stripComments(statement)).find()) {
            result.await();
            out.println("inserted");
            return;
        }
        if (result.getResultKind() != ResultKind.SUCCESS_WITH_CONTENT) {
            return;
        }
        TableResultInternal rows = (TableResultInternal) result;
        List<RowData> all = new ArrayList<>();
        try (CloseableIterator<RowData> it = rows.collectInternal()) {
            it.forEachRemaining(all::add);
        }
        PrintWriter writer = new PrintWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8));
        PrintStyle.tableauWithDataInferredColumnWidths(
                        result.getResolvedSchema(),
                        rows.getRowDataToStringConverter(),
                        PrintStyle.DEFAULT_MAX_COLUMN_WIDTH,
                        false,
                        false)
                .print(all.iterator(), writer);
        writer.flush(); // the style's last line is the row count
    }
}
