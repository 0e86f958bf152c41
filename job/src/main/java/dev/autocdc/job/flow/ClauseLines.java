package dev.autocdc.job.flow;

import dev.autocdc.job.flow.Tokens.Kind;
import dev.autocdc.job.flow.Tokens.Token;
import dev.autocdc.operators.core.FlowDefinitionException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The script lines of a flow's clauses and of the names each clause holds, so that a mistake found
 * when the flow is planned (an unknown column, say) names the line it is on rather than the line
 * the statement starts on. The lines live in the map {@link FlowScript.FlowItem#conditionLines}
 * carries: a clause under its own name ({@code KEYS}), a name in it under {@link #key}.
 */
public final class ClauseLines {
    private ClauseLines() {}

    /** The key of a name written in a clause: the clause, a NUL, the name in lower case. */
    static String key(String clause, String name) {
        return clause + '\0' + name.toLowerCase(Locale.ROOT);
    }

    /**
     * The line of each clause's first token and of each name in it (its first appearance there).
     *
     * @param starts the position in {@code tokens} each clause starts at, by clause
     */
    static Map<String, Integer> of(List<Token> tokens, Map<String, Integer> starts) {
        List<Map.Entry<String, Integer>> ordered = new ArrayList<>(starts.entrySet());
        ordered.sort(Map.Entry.comparingByValue());
        Map<String, Integer> lines = new HashMap<>();
        for (int i = 0; i < ordered.size(); i++) {
            String clause = ordered.get(i).getKey();
            int from = ordered.get(i).getValue();
            int to = i + 1 < ordered.size() ? ordered.get(i + 1).getValue() : tokens.size();
            lines.put(clause, tokens.get(from).line());
            for (Token t : tokens.subList(from, to)) {
                if (t.kind() == Kind.WORD || t.kind() == Kind.QUOTED_ID) {
                    lines.putIfAbsent(key(clause, t.name()), t.line());
                }
            }
        }
        return lines;
    }

    /**
     * The line a planner's mistake is on: the line of the name it is about within its clause, else
     * the clause's line, else {@code fallback} (the statement's). A mistake's clause may say more
     * than the clause's keywords ({@code COLUMNS * EXCEPT}, {@code TRACK HISTORY ON}): the longest
     * clause it begins with counts.
     */
    public static int lineOf(Map<String, Integer> lines, FlowDefinitionException e, int fallback) {
        String clause = null;
        for (String k : lines.keySet()) {
            if (k.indexOf('\0') < 0
                    && (e.clause().equals(k) || e.clause().startsWith(k + " "))
                    && (clause == null || k.length() > clause.length())) {
                clause = k;
            }
        }
        if (clause == null) {
            return fallback;
        }
        String subject = subject(e);
        if (subject != null) {
            Integer at = lines.get(key(clause, subject.trim()));
            if (at != null) {
                return at;
            }
        }
        return lines.get(clause);
    }

    /**
     * The name a mistake is about: its subject, or for a builder's "unknown column X; ..." (which
     * names no subject) the X.
     */
    private static String subject(FlowDefinitionException e) {
        if (e.subject() != null) {
            return e.subject();
        }
        String unknown = "unknown column ";
        int end = e.detail().indexOf(';');
        return e.detail().startsWith(unknown) && end > unknown.length()
                ? e.detail().substring(unknown.length(), end)
                : null;
    }
}
