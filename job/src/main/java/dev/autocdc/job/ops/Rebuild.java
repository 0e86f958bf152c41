package dev.autocdc.job.ops;

import dev.autocdc.job.flow.FlowScript;
import dev.autocdc.job.flow.ScriptSplitter;
import dev.autocdc.operators.core.AutoCdcFlow;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The flow file of a rebuild: every flow renamed {@code <flow>_<suffix>} (new operator uids, so no
 * state of the old flows can be restored into it: a strict restore of their savepoint is refused),
 * writing a new target {@code <target>_<suffix>} (a connector target's {@code topic}, {@code
 * table-name} or {@code path} gets the suffix too; a flow that reads another's target reads the new
 * one), its settings renamed with it, and every Kafka source read from its earliest offset under a
 * consumer group of its own (its {@code WITH} options edited). Erasures tables are left as they
 * are: an erasure acts when it is processed, so it is replayed once the rebuild has caught up. The
 * old job runs on until the new one has caught up and readers are moved; nothing of the old is
 * touched. The rebuilt file has no comments: statements are rewritten without them, so that a name
 * in a comment is never the one renamed.
 */
public final class Rebuild {
    /** The options of a connector target that say where it writes, given the suffix. */
    private static final List<String> PLACE_OPTIONS = List.of("topic", "table-name", "path");

    private static final Pattern KAFKA =
            Pattern.compile("'connector'\\s*=\\s*'kafka'", Pattern.CASE_INSENSITIVE);

    private static final Pattern CONNECTOR =
            Pattern.compile("'connector'\\s*=", Pattern.CASE_INSENSITIVE);

    private static final Pattern WITH = Pattern.compile("\\bWITH\\s*\\(", Pattern.CASE_INSENSITIVE);

    private static final Pattern ERASURES =
            Pattern.compile(
                    "^SET\\s+'autocdc\\.[^']*\\.erasures-table'\\s*=\\s*'([^']*)'",
                    Pattern.CASE_INSENSITIVE);

    /** After a name: the end of the identifier. */
    private static final String END = "(?![\\w.`])";

    private Rebuild() {}

    /**
     * The rebuilt file's text.
     *
     * @throws IllegalArgumentException for a connector target whose place it cannot rename
     */
    public static String of(String script, String suffix) {
        FlowScript parsed = FlowScript.parse(script);
        Map<String, String> flows = new LinkedHashMap<>();
        Map<String, String> targets = new LinkedHashMap<>();
        for (AutoCdcFlow f : parsed.flows()) {
            flows.put(f.name(), f.name() + "_" + suffix);
            targets.put(f.target(), f.target() + "_" + suffix);
        }
        List<String> statements = new ArrayList<>();
        Set<String> erasures = new HashSet<>();
        for (ScriptSplitter.Statement s : ScriptSplitter.split(script)) {
            String text = ScriptSplitter.stripComments(s.text()).strip();
            statements.add(text);
            Matcher m = ERASURES.matcher(text);
            if (m.find()) {
                erasures.add(m.group(1).toLowerCase(Locale.ROOT));
            }
        }
        List<String> out = new ArrayList<>();
        int index = 0;
        for (ScriptSplitter.Statement s : ScriptSplitter.split(script)) {
            String text = statements.get(index++);
            for (Map.Entry<String, String> f : flows.entrySet()) {
                text = rename(text, "CREATE\\s+FLOW\\s+", f.getKey(), f.getValue(), END);
                text = rename(text, "SET\\s+'autocdc\\.", f.getKey(), f.getValue(), "(?=\\.)");
            }
            boolean target = false;
            for (Map.Entry<String, String> t : targets.entrySet()) {
                String before = text;
                text = rename(text, "STREAMING\\s+TABLE\\s+", t.getKey(), t.getValue(), END);
                target |= !text.equals(before);
                text = rename(text, "\\bINTO\\s+", t.getKey(), t.getValue(), END);
                text =
                        rename(
                                text,
                                "\\b(?:STREAM|SNAPSHOT)\\s*\\(\\s*",
                                t.getKey(),
                                t.getValue(),
                                END);
            }
            String declared = tableName(text);
            if (target
                    && CONNECTOR.matcher(text).find()) { // else a catalog's: its name is its place
                text = renamePlace(text, suffix, s.line());
            } else if (!target
                    && KAFKA.matcher(text).find()
                    && (declared == null || !erasures.contains(declared))) {
                text = option(text, "scan.startup.mode", v -> "earliest-offset");
                text =
                        option(
                                text,
                                "properties.group.id",
                                v -> (v == null ? "autocdc" : v) + "-rebuild-" + suffix);
            }
            out.add(text);
        }
        String rebuilt =
                "-- rebuilt with autocdc rebuild --suffix "
                        + suffix
                        + ": run it as a new job, without a savepoint\n"
                        + String.join(";\n\n", out)
                        + ";\n";
        check(FlowScript.parse(rebuilt), flows, targets);
        return rebuilt;
    }

    /** Every flow and target of the rebuilt file renamed, none writing an old target. */
    private static void check(
            FlowScript rebuilt, Map<String, String> flows, Map<String, String> targets) {
        for (AutoCdcFlow f : rebuilt.flows()) {
            if (!flows.containsValue(f.name())
                    || !targets.containsValue(f.target())
                    || targets.containsKey(f.target())) {
                throw new IllegalStateException(
                        "rebuild could not rename flow "
                                + f.name()
                                + " into "
                                + f.target()
                                + " (line "
                                + f.line()
                                + "); write the rebuilt file by hand");
            }
        }
    }

    /** The first {@code name} (bare or back-quoted) after {@code before}, renamed. */
    private static String rename(
            String text, String before, String name, String renamed, String after) {
        Matcher m =
                Pattern.compile(
                                "(" + before + ")(`?)" + Pattern.quote(name) + "`?" + after,
                                Pattern.CASE_INSENSITIVE)
                        .matcher(text);
        if (!m.find()) {
            return text;
        }
        String quote = m.group(2);
        return text.substring(0, m.start())
                + m.group(1)
                + quote
                + renamed
                + quote
                + text.substring(m.end());
    }

    /** The table option set to {@code value.apply(its value or null)}, added when absent. */
    private static String option(String text, String key, UnaryOperator<String> value) {
        Matcher m =
                Pattern.compile(
                                "'" + Pattern.quote(key) + "'\\s*=\\s*'([^']*)'",
                                Pattern.CASE_INSENSITIVE)
                        .matcher(text);
        if (m.find()) {
            return text.substring(0, m.start())
                    + "'"
                    + key
                    + "' = '"
                    + value.apply(m.group(1))
                    + "'"
                    + text.substring(m.end());
        }
        Matcher with = WITH.matcher(text);
        if (!with.find()) {
            return text;
        }
        return text.substring(0, with.end())
                + "'"
                + key
                + "' = '"
                + value.apply(null)
                + "', "
                + text.substring(with.end());
    }

    /** A connector target's topic, table-name or path, suffixed; refused when it has none. */
    private static String renamePlace(String text, String suffix, int line) {
        for (String option : PLACE_OPTIONS) {
            Matcher m =
                    Pattern.compile(
                                    "('" + Pattern.quote(option) + "'\\s*=\\s*')([^']*?)(/*)'",
                                    Pattern.CASE_INSENSITIVE)
                            .matcher(text);
            if (m.find()) {
                // a path's last segment gets the suffix: users/ becomes users_v2/, a sibling
                return text.substring(0, m.start())
                        + m.group(1)
                        + m.group(2)
                        + "_"
                        + suffix
                        + m.group(3)
                        + "'"
                        + text.substring(m.end());
            }
        }
        throw new IllegalArgumentException(
                "line "
                        + line
                        + ": the target's WITH names no "
                        + String.join(", ", PLACE_OPTIONS)
                        + "; rebuild cannot give its copy a place of its own: declare the target"
                        + " in a catalog (Paimon, Iceberg) or write the rebuilt file by hand");
    }

    /**
     * The table a {@code CREATE [TEMPORARY] TABLE name} statement declares (lower case), or null.
     */
    private static String tableName(String text) {
        Matcher m =
                Pattern.compile(
                                "^CREATE\\s+(?:TEMPORARY\\s+)?TABLE\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?`?([\\w.]+)`?",
                                Pattern.CASE_INSENSITIVE)
                        .matcher(text);
        return m.find() ? m.group(1).toLowerCase(Locale.ROOT) : null;
    }
}
