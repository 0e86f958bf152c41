package dev.autocdc.job.flow;

import dev.autocdc.job.flow.Tokens.Kind;
import dev.autocdc.job.flow.Tokens.Token;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A value written without quotes in a condition: {@code op = DELETE}, {@code op IN (INSERT,
 * UPDATE)}. A word compared with {@code =}, {@code <>}, {@code <} ... or listed in {@code IN (...)}
 * that is no column of the source, no function call, no SQL literal word (TRUE, NULL, CURRENT_DATE,
 * ...) and starts no typed literal ({@code DATE '2024-01-01'}). Whether the condition is wrong is
 * for Flink to say; this only names the likely fix.
 *
 * @param word the first such word, as written
 * @param line the script line it is on
 * @param quoted the condition with every such word quoted as a string literal
 */
public record UnquotedLiteral(String word, int line, String quoted) {
    private static final Set<String> COMPARISONS = Set.of("=", "<>", "!=", "<", ">", "<=", ">=");

    private static final Set<String> NOT_VALUES =
            Set.of(
                    "TRUE",
                    "FALSE",
                    "NULL",
                    "UNKNOWN",
                    "NOT",
                    "CAST",
                    "TRY_CAST",
                    "CASE",
                    "INTERVAL",
                    "CURRENT_DATE",
                    "CURRENT_TIME",
                    "CURRENT_TIMESTAMP",
                    "LOCALTIME",
                    "LOCALTIMESTAMP",
                    "ANY",
                    "SOME",
                    "ALL",
                    "EXISTS",
                    "ARRAY",
                    "MAP",
                    "ROW");

    /**
     * The unquoted value in {@code condition}, or null.
     *
     * @param condition the condition as Flink SQL
     * @param firstLine the script line the condition starts on
     * @param columns the source's columns
     */
    public static UnquotedLiteral find(
            String condition, int firstLine, Collection<String> columns) {
        List<Token> tokens;
        try {
            tokens = Tokens.of(condition, firstLine);
        } catch (FlowSyntaxException unreadable) {
            return null;
        }
        Set<String> names = new HashSet<>();
        columns.forEach(c -> names.add(c.toUpperCase(Locale.ROOT)));
        List<Token> found = new ArrayList<>();
        List<Integer> inLists = new ArrayList<>(); // the depths of the open IN (...) lists
        int depth = 0;
        for (int i = 0; i < tokens.size(); i++) {
            Token t = tokens.get(i);
            if (t.isSymbol("(")) {
                depth++;
                if (i > 0 && tokens.get(i - 1).is("IN")) {
                    inLists.add(depth);
                }
            } else if (t.isSymbol(")")) {
                inLists.remove(Integer.valueOf(depth));
                depth--;
            } else if (i > 0 && value(tokens, i, depth, inLists) && !names.contains(t.upper())) {
                found.add(t);
            }
        }
        if (found.isEmpty()) {
            return null;
        }
        StringBuilder quoted = new StringBuilder();
        int from = 0;
        for (Token t : found) {
            quoted.append(condition, from, t.start())
                    .append('\'')
                    .append(t.text().replace("'", "''"))
                    .append('\'');
            from = t.end();
        }
        quoted.append(condition.substring(from));
        return new UnquotedLiteral(found.get(0).text(), found.get(0).line(), quoted.toString());
    }

    /** Whether the token at {@code i} is a bare word in the place of a compared or listed value. */
    private static boolean value(List<Token> tokens, int i, int depth, List<Integer> inLists) {
        Token t = tokens.get(i);
        Token before = tokens.get(i - 1);
        Token after = i + 1 < tokens.size() ? tokens.get(i + 1) : null;
        boolean compared =
                before.kind() == Kind.SYMBOL && COMPARISONS.contains(before.text())
                        || inLists.contains(depth)
                                && (before.isSymbol("(") || before.isSymbol(","));
        return compared
                && t.kind() == Kind.WORD
                && !t.text().contains(".")
                && !NOT_VALUES.contains(t.upper())
                && (after == null || !after.isSymbol("(") && after.kind() != Kind.STRING);
    }
}
