package dev.autocdc.job.plan;

import java.util.ArrayList;
import java.util.List;

/**
 * Makes the CASTs of a flow's condition unable to fail the job (semantics §11): each {@code CAST(x
 * AS T)} becomes {@code TRY_CAST(x AS T)}, and a failure flag {@code ((x) IS NOT NULL AND
 * TRY_CAST(x AS T) IS NULL)} says that the record's value did not convert. The planner sends a
 * record to the dead letters, naming the clause, when its condition came out null and a flag is
 * set: with {@code TRY_CAST} alone, a null condition is false, and a delete that could not be read
 * would be applied as an upsert. A condition that is true or false did not depend on the failed
 * CAST (a branch of CASE, AND or OR that Flink never evaluated), and the record is applied.
 *
 * <p>The rewrite works on the expression's text: it skips string literals ({@code '...'}), quoted
 * identifiers ({@code `...`}, {@code "..."}) and {@code TRY_CAST}, and handles nested CASTs (the
 * inner one is guarded too). Flink's planner then checks the result as it checks any condition.
 */
final class CastGuard {
    /** The rewritten condition, and the failure flags of its CASTs (none: nothing to guard). */
    record Guarded(String condition, List<String> failed) {
        /** One BOOLEAN expression true when any CAST failed; null when there is none. */
        String anyFailed() {
            return failed.isEmpty() ? null : "(" + String.join(" OR ", failed) + ")";
        }
    }

    private CastGuard() {}

    static Guarded guard(String condition) {
        List<String> failed = new ArrayList<>();
        return new Guarded(rewrite(condition, failed), failed);
    }

    private static String rewrite(String s, List<String> failed) {
        StringBuilder out = new StringBuilder();
        int i = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c == '\'' || c == '`' || c == '"') {
                int end = closing(s, i);
                out.append(s, i, end);
                i = end;
            } else if (isCastAt(s, i)) {
                int open = s.indexOf('(', i + 4);
                int close = matching(s, open);
                int as = lastTopLevelAs(s, open + 1, close);
                if (close < 0 || as < 0) { // not a CAST we can read: Flink will say why
                    out.append(s, i, i + 4);
                    i += 4;
                    continue;
                }
                String operand = rewrite(s.substring(open + 1, as).trim(), failed);
                String type = s.substring(as + 2, close).trim();
                String tryCast = "TRY_CAST(" + operand + " AS " + type + ")";
                failed.add("((" + operand + ") IS NOT NULL AND " + tryCast + " IS NULL)");
                out.append(tryCast);
                i = close + 1;
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }

    /** {@code CAST} as a whole word followed by an opening parenthesis. */
    private static boolean isCastAt(String s, int i) {
        if (!s.regionMatches(true, i, "CAST", 0, 4)) {
            return false;
        }
        if (i > 0 && (Character.isLetterOrDigit(s.charAt(i - 1)) || s.charAt(i - 1) == '_')) {
            return false; // TRY_CAST, MYCAST
        }
        int j = i + 4;
        while (j < s.length() && Character.isWhitespace(s.charAt(j))) {
            j++;
        }
        return j < s.length() && s.charAt(j) == '(';
    }

    /** The index after the quote that closes the one at {@code i} (doubled quotes escape). */
    private static int closing(String s, int i) {
        char q = s.charAt(i);
        int j = i + 1;
        while (j < s.length()) {
            if (s.charAt(j) == q) {
                if (j + 1 < s.length() && s.charAt(j + 1) == q) {
                    j += 2;
                    continue;
                }
                return j + 1;
            }
            j++;
        }
        return s.length();
    }

    /** The parenthesis closing the one at {@code open}, or -1. */
    private static int matching(String s, int open) {
        int depth = 0;
        int i = open;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c == '\'' || c == '`' || c == '"') {
                i = closing(s, i);
                continue;
            }
            if (c == '(') {
                depth++;
            } else if (c == ')' && --depth == 0) {
                return i;
            }
            i++;
        }
        return -1;
    }

    /** The last {@code AS} word at depth 0 in {@code s[from, to)}, or -1. */
    private static int lastTopLevelAs(String s, int from, int to) {
        int depth = 0;
        int found = -1;
        int i = from;
        while (i < to) {
            char c = s.charAt(i);
            if (c == '\'' || c == '`' || c == '"') {
                i = closing(s, i);
                continue;
            }
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (depth == 0
                    && s.regionMatches(true, i, "AS", 0, 2)
                    && i > from
                    && Character.isWhitespace(s.charAt(i - 1))
                    && i + 2 < to
                    && Character.isWhitespace(s.charAt(i + 2))) {
                found = i;
            }
            i++;
        }
        return found;
    }
}
