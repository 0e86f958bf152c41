package dev.autocdc.job.flow;

import dev.autocdc.job.flow.Tokens.Kind;
import dev.autocdc.job.flow.Tokens.Token;
import dev.autocdc.operators.core.AutoCdcFlow;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A flow file: a Flink SQL script with the AUTO CDC statements of the references. Each statement
 * becomes one {@link Item}: ordinary Flink SQL (run as is), a target declaration ({@code CREATE OR
 * REFRESH STREAMING TABLE}), or an {@link AutoCdcFlow} ({@code CREATE FLOW ... AS AUTO CDC INTO
 * ...}). Keywords are case-insensitive; string literals may use single or double quotes in AUTO CDC
 * clauses (identifiers that need quoting use backticks).
 */
public final class FlowScript {

    /** One statement of the script. */
    public sealed interface Item permits SqlStatement, TargetTable, FlowItem {
        int line();
    }

    /** Flink SQL to execute as written (CREATE TABLE, CREATE VIEW, SET, ...). */
    public record SqlStatement(String sql, int line) implements Item {}

    /**
     * {@code CREATE OR REFRESH STREAMING TABLE name [(columns)] [PARTITIONED BY (col, ...)] [WITH
     * (options)]}: the flow's target. {@code columns} and {@code options} are the text inside the
     * parentheses, or null when absent; {@code partitionedBy} the partition columns of a table the
     * flow creates (Databricks' {@code partition_cols}), or null.
     */
    public record TargetTable(
            String name, String columns, String options, List<String> partitionedBy, int line)
            implements Item {
        public TargetTable(String name, String columns, String options, int line) {
            this(name, columns, options, null, line);
        }

        /**
         * Whether the target declares Flink table options ({@code WITH}); a target without them is
         * kept by the CLI unless its catalog makes its own tables (the planner decides).
         */
        public boolean hasConnector() {
            return options != null;
        }
    }

    /**
     * An AUTO CDC flow, and the script line each of its conditions starts on, by clause ({@code
     * APPLY AS DELETE WHEN}, ...).
     */
    public record FlowItem(AutoCdcFlow flow, Map<String, Integer> conditionLines) implements Item {
        public FlowItem(AutoCdcFlow flow) {
            this(flow, Map.of());
        }

        @Override
        public int line() {
            return flow.line();
        }
    }

    private final List<Item> items;

    private FlowScript(List<Item> items) {
        this.items = List.copyOf(items);
    }

    public List<Item> items() {
        return items;
    }

    public List<AutoCdcFlow> flows() {
        List<AutoCdcFlow> flows = new ArrayList<>();
        for (Item i : items) {
            if (i instanceof FlowItem f) {
                flows.add(f.flow());
            }
        }
        return flows;
    }

    public List<TargetTable> targets() {
        List<TargetTable> out = new ArrayList<>();
        for (Item i : items) {
            if (i instanceof TargetTable t) {
                out.add(t);
            }
        }
        return out;
    }

    public static FlowScript parse(String script) {
        List<Item> items = new ArrayList<>();
        for (ScriptSplitter.Statement s : ScriptSplitter.split(script)) {
            String text = ScriptSplitter.stripComments(s.text());
            int firstLine = s.line() - leadingNewlines(text);
            List<Token> tokens = Tokens.of(text, firstLine);
            if (startsWith(tokens, "CREATE", "OR", "REFRESH", "STREAMING", "TABLE")
                    || startsWith(tokens, "CREATE", "STREAMING", "TABLE")) {
                items.add(targetTable(tokens, text, s.line()));
            } else if (startsWith(tokens, "CREATE", "FLOW") && isAutoCdc(tokens)
                    || startsWith(tokens, "APPLY", "CHANGES", "INTO")) {
                AutoCdcParser parser = new AutoCdcParser(tokens, text, s.line());
                items.add(new FlowItem(parser.parse(), parser.conditionLines()));
            } else if (startsWith(tokens, "CREATE", "FLOW")) {
                throw new FlowSyntaxException(
                        s.line(),
                        "CREATE FLOW",
                        "only AUTO CDC flows are supported: CREATE FLOW name AS AUTO CDC INTO"
                                + " target FROM STREAM(source) ...");
            } else {
                items.add(new SqlStatement(s.text(), s.line()));
            }
        }
        return new FlowScript(items);
    }

    private static int leadingNewlines(String text) {
        int n = 0;
        for (int i = 0; i < text.length() && Character.isWhitespace(text.charAt(i)); i++) {
            if (text.charAt(i) == '\n') {
                n++;
            }
        }
        return n;
    }

    /** CREATE FLOW ... AS AUTO CDC INTO, or the legacy spelling AS APPLY CHANGES INTO. */
    private static boolean isAutoCdc(List<Token> tokens) {
        for (int i = 0; i + 2 < tokens.size(); i++) {
            if (tokens.get(i).is("AUTO") && tokens.get(i + 1).is("CDC")
                    || matchesAt(tokens, i, "APPLY", "CHANGES", "INTO")) {
                return true;
            }
        }
        return false;
    }

    static boolean startsWith(List<Token> tokens, String... words) {
        return matchesAt(tokens, 0, words);
    }

    static boolean matchesAt(List<Token> tokens, int at, String... words) {
        if (tokens.size() < at + words.length) {
            return false;
        }
        for (int i = 0; i < words.length; i++) {
            if (!tokens.get(at + i).is(words[i])) {
                return false;
            }
        }
        return true;
    }

    private static TargetTable targetTable(List<Token> tokens, String text, int line) {
        int i = tokens.get(1).is("OR") ? 5 : 3;
        if (i >= tokens.size()) {
            throw new FlowSyntaxException(
                    line, "CREATE OR REFRESH STREAMING TABLE", "the target table needs a name");
        }
        Token nameToken = tokens.get(i++);
        String columns = null;
        String options = null;
        List<String> partitionedBy = null;
        while (i < tokens.size()) {
            Token t = tokens.get(i);
            if (t.isSymbol("(") && columns == null && options == null) {
                int close = closing(tokens, i, line, "the target's columns");
                columns = text.substring(tokens.get(i).end(), tokens.get(close).start()).trim();
                i = close + 1;
            } else if (t.is("WITH") && i + 1 < tokens.size() && tokens.get(i + 1).isSymbol("(")) {
                int close = closing(tokens, i + 1, line, "WITH");
                options = text.substring(tokens.get(i + 1).end(), tokens.get(close).start()).trim();
                i = close + 1;
            } else if (t.is("COMMENT")
                    && i + 1 < tokens.size()
                    && tokens.get(i + 1).kind() == Kind.STRING) {
                i += 2;
            } else if (t.is("PARTITIONED")
                    && partitionedBy == null
                    && i + 2 < tokens.size()
                    && tokens.get(i + 1).is("BY")
                    && tokens.get(i + 2).isSymbol("(")) {
                int close = closing(tokens, i + 2, line, "PARTITIONED BY");
                partitionedBy = new ArrayList<>();
                for (int at = i + 3; at < close; at += 2) { // name, then a comma or the end
                    Token c = tokens.get(at);
                    boolean name = c.kind() == Kind.WORD || c.kind() == Kind.QUOTED_ID;
                    boolean then = at + 1 == close || tokens.get(at + 1).isSymbol(",");
                    if (!name || !then || at + 2 == close) {
                        Token bad = !name || at + 1 == close ? c : tokens.get(at + 1);
                        throw new FlowSyntaxException(
                                bad.line(),
                                "PARTITIONED BY",
                                "unexpected '" + bad.text() + "'; write PARTITIONED BY (col, ...)");
                    }
                    partitionedBy.add(c.name());
                }
                if (partitionedBy.isEmpty()) {
                    throw new FlowSyntaxException(
                            t.line(), "PARTITIONED BY", "name one or more columns");
                }
                i = close + 1;
            } else if (StatementEnd.startsStatement(tokens, i)) {
                throw StatementEnd.missing(
                        tokens, i, "CREATE OR REFRESH STREAMING TABLE " + nameToken.name());
            } else {
                throw new FlowSyntaxException(
                        t.line(),
                        "CREATE OR REFRESH STREAMING TABLE",
                        "unexpected '"
                                + t.text()
                                + "'; write CREATE OR REFRESH STREAMING TABLE name [(columns)]"
                                + " [PARTITIONED BY (col, ...)] [WITH ('connector' = ...)]");
            }
        }
        return new TargetTable(
                nameToken.name(),
                columns,
                options,
                partitionedBy == null ? null : List.copyOf(partitionedBy),
                line);
    }

    /** Index of the ")" that closes the "(" at {@code open}. */
    static int closing(List<Token> tokens, int open, int line, String what) {
        int depth = 0;
        for (int i = open; i < tokens.size(); i++) {
            if (tokens.get(i).isSymbol("(")) {
                depth++;
            } else if (tokens.get(i).isSymbol(")")) {
                depth--;
                if (depth == 0) {
                    return i;
                }
            }
        }
        throw new FlowSyntaxException(line, what, "a parenthesis is not closed");
    }
}
