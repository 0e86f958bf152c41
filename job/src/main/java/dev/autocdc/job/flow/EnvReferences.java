package dev.autocdc.job.flow;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code ${env:NAME}} in a flow file: replaced by the environment variable NAME before the script
 * is parsed, which is how Kubernetes hands a Secret to a container (Flink SQL has no such
 * substitution).
 *
 * <ul>
 *   <li>Inside a single-quoted SQL string the value's single quotes are doubled, so a password with
 *       a quote stays one string; elsewhere the value is inserted as it is.
 *   <li>{@code $${env:NAME}} stands for the text {@code ${env:NAME}} itself.
 *   <li>A variable that is not set fails the flow, naming the line.
 *   <li>The values substituted are kept so that the command line's output can show {@code
 *       ${env:NAME}} in their place ({@link #redact}). Values shorter than {@value
 *       #REDACTED_LENGTH} characters are not redacted: they are no secrets, and replacing every "1"
 *       or "on" in a message would garble it.
 * </ul>
 */
public final class EnvReferences {
    /** The shortest value that {@link #redact} replaces. */
    static final int REDACTED_LENGTH = 4;

    private static final Pattern REFERENCE =
            Pattern.compile("\\$?\\$\\{env:([A-Za-z_][A-Za-z0-9_]*)\\}");

    private final String text;
    private final Map<String, List<String>> shown;

    private EnvReferences(String text, Map<String, List<String>> shown) {
        this.text = text;
        this.shown = shown;
    }

    /**
     * @throws FlowSyntaxException a referenced variable is not set
     */
    public static EnvReferences resolve(String script, Map<String, String> environment) {
        Map<String, List<String>> shown = new LinkedHashMap<>();
        StringBuilder out = new StringBuilder();
        Matcher m = REFERENCE.matcher(script);
        while (m.find()) {
            String name = m.group(1);
            String replacement;
            if (m.group().startsWith("$$")) {
                replacement = m.group().substring(1);
            } else {
                String value = environment.get(name);
                if (value == null) {
                    throw new FlowSyntaxException(
                            lineOf(script, m.start()),
                            "${env:" + name + "}",
                            "the environment variable "
                                    + name
                                    + " is not set; set it (on Kubernetes: env or envFrom of the"
                                    + " container, from a Secret), or write $${env:"
                                    + name
                                    + "} for the text itself");
                }
                replacement =
                        insideSingleQuotes(script, m.start()) ? value.replace("'", "''") : value;
                List<String> forms = shown.computeIfAbsent(name, k -> new ArrayList<>());
                for (String form : List.of(value, replacement)) {
                    if (form.length() >= REDACTED_LENGTH && !forms.contains(form)) {
                        forms.add(form);
                    }
                }
            }
            m.appendReplacement(out, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(out);
        return new EnvReferences(out.toString(), shown);
    }

    /** The script with every reference replaced. */
    public String text() {
        return text;
    }

    /** The text with each substituted value (as given, and as quoted) shown as its reference. */
    public String redact(String s) {
        if (s == null || shown.isEmpty()) {
            return s;
        }
        // the longest first, so that a value inside another is not shown half replaced
        List<Map.Entry<String, String>> longestFirst = new ArrayList<>();
        shown.forEach((name, forms) -> forms.forEach(f -> longestFirst.add(Map.entry(name, f))));
        longestFirst.sort((a, b) -> b.getValue().length() - a.getValue().length());
        String r = s;
        for (Map.Entry<String, String> e : longestFirst) {
            r = r.replace(e.getValue(), "${env:" + e.getKey() + "}");
        }
        return r;
    }

    /**
     * Whether the offset lies inside a single-quoted string of the script, skipping {@code --} and
     * block comments and double-quoted and backquoted names ({@code ''} inside a string is a
     * quote).
     */
    private static boolean insideSingleQuotes(String s, int offset) {
        char open = 0; // the quote we are inside, or 0
        for (int i = 0; i < offset; i++) {
            char c = s.charAt(i);
            if (open != 0) {
                if (c == open) {
                    open = 0; // a doubled quote closes and reopens: same state after both
                }
            } else if (c == '\'' || c == '"' || c == '`') {
                open = c;
            } else if (c == '-' && i + 1 < offset && s.charAt(i + 1) == '-') {
                int end = s.indexOf('\n', i);
                i = end < 0 ? offset : end;
            } else if (c == '/' && i + 1 < offset && s.charAt(i + 1) == '*') {
                int end = s.indexOf("*/", i + 2);
                i = end < 0 ? offset : end + 1;
            }
        }
        return open == '\'';
    }

    private static int lineOf(String s, int offset) {
        int line = 1;
        for (int i = 0; i < offset; i++) {
            if (s.charAt(i) == '\n') {
                line++;
            }
        }
        return line;
    }
}
