package dev.autocdc.job.ops;

import dev.autocdc.job.flow.FlowScript;
import dev.autocdc.job.flow.ScriptSplitter;
import dev.autocdc.job.plan.PlannedFlow;
import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.HistoryLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What {@code autocdc bootstrap} reads: the flow each {@code --from [FLOW=]TABLE} names, the flow
 * file's statements that declare the tables it reads, and where the savepoint goes. Every mistake
 * is refused before anything runs, with the option and the fix.
 */
public final class BootstrapSources {
    /**
     * The savepoint's key groups when neither --max-parallelism nor pipeline.max-parallelism says:
     * Flink's own default up to parallelism 85, which deploy/ and the manifests also write out.
     */
    public static final int DEFAULT_MAX_PARALLELISM = 128;

    private BootstrapSources() {}

    /**
     * The flow and table of one {@code --from} value: {@code FLOW=TABLE}, or {@code TABLE} when the
     * file has one flow.
     */
    public static Bootstrap.Source source(
            List<PlannedFlow> flows, String from, String asOf, BootstrapWords words) {
        int eq = from.indexOf('=');
        String table = eq < 0 ? from.strip() : from.substring(eq + 1).strip();
        PlannedFlow flow;
        if (eq < 0) {
            if (flows.size() != 1) {
                throw new IllegalArgumentException(
                        words.from()
                                + " "
                                + from
                                + ": the file has "
                                + flows.size()
                                + " flows; name the flow the table is the history of, as "
                                + words.from()
                                + " FLOW="
                                + table
                                + " (flows: "
                                + names(flows)
                                + ")");
            }
            flow = flows.get(0);
        } else {
            String name = from.substring(0, eq).strip();
            flow = null;
            for (PlannedFlow f : flows) {
                if (f.flow().name().equalsIgnoreCase(name)) {
                    flow = f;
                }
            }
            if (flow == null) {
                throw new IllegalArgumentException(
                        words.from()
                                + " "
                                + from
                                + ": the file has no flow "
                                + name
                                + " (flows: "
                                + names(flows)
                                + ")");
            }
        }
        if (table.isEmpty()) {
            throw new IllegalArgumentException(
                    words.from() + " " + from + ": name the table after '='");
        }
        if (asOf != null && flow.type() != TargetType.SCD1) {
            throw new IllegalArgumentException(
                    words.asOf()
                            + " is for SCD TYPE 1 flows, whose rows keep no sequence; flow "
                            + flow.flow().name()
                            + " is "
                            + flow.type()
                            + ": its rows carry __START_AT");
        }
        String unsupported = HistoryLoader.unsupported(flow.spec());
        if (unsupported != null) {
            throw new IllegalArgumentException(
                    words.from()
                            + " "
                            + from
                            + ": flow "
                            + flow.flow().name()
                            + " cannot start from a stored history: "
                            + unsupported);
        }
        return new Bootstrap.Source(flow, table, asOf, words);
    }

    /**
     * Whether a statement of the flow file is one the bootstrap runs: the ones that declare
     * catalogs, databases, tables, views and functions ({@code CREATE}, {@code ALTER}, {@code
     * USE}), and the settings of how SQL reads values ({@code SET 'table.*'}, say the local time
     * zone); never an {@code INSERT} (another job's work) or another setting (the flow job's).
     */
    public static boolean declares(FlowScript.SqlStatement sql) {
        String text = ScriptSplitter.stripComments(sql.sql()).strip().toUpperCase(Locale.ROOT);
        return text.startsWith("CREATE")
                || text.startsWith("ALTER")
                || text.startsWith("USE")
                || text.matches("^SET\\s+'TABLE\\.[\\s\\S]*");
    }

    /** The savepoint directory as a URI; refused when it holds a savepoint already. */
    public static String savepointUri(String savepoint, BootstrapWords words) {
        if (savepoint.contains("://")) {
            return savepoint;
        }
        Path dir = Path.of(savepoint).toAbsolutePath();
        if (Files.exists(dir.resolve("_metadata"))) {
            throw new IllegalArgumentException(
                    words.savepoint()
                            + " "
                            + savepoint
                            + " holds a savepoint already; name a new directory");
        }
        return dir.toUri().toString();
    }

    private static String names(List<PlannedFlow> flows) {
        List<String> names = new ArrayList<>();
        flows.forEach(f -> names.add(f.flow().name()));
        return String.join(", ", names);
    }
}
