package dev.autocdc.job.flow;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A script's {@code SET 'key' = 'value'}, as Flink's SQL client takes it: key and value in single
 * quotes ({@code ''} for a quote inside) or bare words. Read the same way by {@code run}, {@code
 * validate} and {@code sql}.
 *
 * @param key the option's key, unquoted
 * @param value its value, unquoted
 */
public record SetStatement(String key, String value) {
    private static final Pattern SET =
            Pattern.compile(
                    "(?is)SET\\s+('(?:[^']|'')*'|[\\w.\\-]+)\\s*=\\s*('(?:[^']|'')*'|\\S+)\\s*");

    /**
     * The key and value of {@code text} (a statement without comments or its {@code ;}); null when
     * it is not a SET of that form.
     */
    public static SetStatement parse(String text) {
        Matcher m = SET.matcher(text.strip());
        return m.matches() ? new SetStatement(unquote(m.group(1)), unquote(m.group(2))) : null;
    }

    /** Whether {@code text} starts with the word SET, in any form, right or wrong. */
    public static boolean startsWithSet(String text) {
        String t = text.strip();
        return t.regionMatches(true, 0, "SET", 0, 3)
                && (t.length() == 3 || Character.isWhitespace(t.charAt(3)));
    }

    private static String unquote(String s) {
        return s.startsWith("'") ? s.substring(1, s.length() - 1).replace("''", "'") : s;
    }
}
