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
 * substitution). {@code $${env:NAME}} stands for the text {@code ${env:NAME}} itself. A variable
 * that is not set fails the flow, naming the line. The values substituted are kept so that the
 * command line's output can show {@code ${env:NAME}} in their place ({@link #redact}).
 */
public final class EnvReferences {
    private static final Pattern REFERENCE =
            Pattern.compile("\\$?\\$\\{env:([A-Za-z_][A-Za-z0-9_]*)\\}");

    private final String text;
    private final Map<String, String> values;

    private EnvReferences(String text, Map<String, String> values) {
        this.text = text;
        this.values = values;
    }

    /**
     * @throws FlowSyntaxException a referenced variable is not set
     */
    public static EnvReferences resolve(String script, Map<String, String> environment) {
        Map<String, String> used = new LinkedHashMap<>();
        StringBuilder out = new StringBuilder();
        Matcher m = REFERENCE.matcher(script);
        while (m.find()) {
            String name = m.group(1);
            String replacement;
            if (m.group().startsWith("$$")) {
                replacement = m.group().substring(1);
            } else {
                replacement = environment.get(name);
                if (replacement == null) {
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
                used.put(name, replacement);
            }
            m.appendReplacement(out, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(out);
        return new EnvReferences(out.toString(), used);
    }

    /** The script with every reference replaced. */
    public String text() {
        return text;
    }

    /** The text with each substituted value (non-blank) shown as its reference again. */
    public String redact(String s) {
        if (s == null) {
            return null;
        }
        String r = s;
        // the longest first, so that a value inside another is not shown half replaced
        List<Map.Entry<String, String>> longestFirst = new ArrayList<>(values.entrySet());
        longestFirst.sort((a, b) -> b.getValue().length() - a.getValue().length());
        for (Map.Entry<String, String> e : longestFirst) {
            if (!e.getValue().isBlank()) {
                r = r.replace(e.getValue(), "${env:" + e.getKey() + "}");
            }
        }
        return r;
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
