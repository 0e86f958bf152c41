package dev.autocdc.job.flow;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits a SQL script into statements at semicolons that are outside string literals ('...' and
 * "..."), quoted identifiers (`...`) and comments (-- to the end of the line, and /* ... *&#47;),
 * and remembers the line each statement starts on. Comments are kept in the statement text; blank
 * statements are dropped.
 */
public final class ScriptSplitter {

    private ScriptSplitter() {}

    /** One statement and the 1-based line of its first non-blank character. */
    public record Statement(String text, int line) {}

    public static List<Statement> split(String script) {
        List<Statement> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        int line = 1;
        int startLine = -1;
        int i = 0;
        int n = script.length();
        while (i < n) {
            char c = script.charAt(i);
            if (c == '-' && i + 1 < n && script.charAt(i + 1) == '-') {
                int end = script.indexOf('\n', i);
                end = end < 0 ? n : end;
                current.append(script, i, end);
                i = end;
                continue;
            }
            if (c == '/' && i + 1 < n && script.charAt(i + 1) == '*') {
                int end = script.indexOf("*/", i + 2);
                end = end < 0 ? n : end + 2;
                String comment = script.substring(i, end);
                line += count(comment, '\n');
                current.append(comment);
                i = end;
                continue;
            }
            if (c == '\'' || c == '"' || c == '`') {
                int end = i + 1;
                while (end < n) {
                    if (script.charAt(end) == c) {
                        if (end + 1 < n && script.charAt(end + 1) == c) {
                            end += 2; // doubled quote inside the literal
                            continue;
                        }
                        break;
                    }
                    end++;
                }
                end = Math.min(end + 1, n);
                String quoted = script.substring(i, end);
                if (startLine < 0) {
                    startLine = line;
                }
                line += count(quoted, '\n');
                current.append(quoted);
                i = end;
                continue;
            }
            if (c == ';') {
                add(out, current, startLine);
                current.setLength(0);
                startLine = -1;
                i++;
                continue;
            }
            if (c == '\n') {
                line++;
            } else if (!Character.isWhitespace(c) && startLine < 0) {
                startLine = line;
            }
            current.append(c);
            i++;
        }
        add(out, current, startLine);
        return out;
    }

    private static void add(List<Statement> out, StringBuilder text, int line) {
        String s = stripComments(text.toString()).trim();
        if (!s.isEmpty()) {
            out.add(new Statement(text.toString().trim(), line));
        }
    }

    /** The text without comments (quotes respected), for emptiness checks and keyword matching. */
    public static String stripComments(String text) {
        StringBuilder b = new StringBuilder();
        int i = 0;
        int n = text.length();
        while (i < n) {
            char c = text.charAt(i);
            if (c == '-' && i + 1 < n && text.charAt(i + 1) == '-') {
                int end = text.indexOf('\n', i);
                i = end < 0 ? n : end;
                continue;
            }
            if (c == '/' && i + 1 < n && text.charAt(i + 1) == '*') {
                int end = text.indexOf("*/", i + 2);
                String comment = text.substring(i, end < 0 ? n : end + 2);
                b.append("\n".repeat(count(comment, '\n'))).append(' ');
                i = end < 0 ? n : end + 2;
                continue;
            }
            if (c == '\'' || c == '"' || c == '`') {
                int end = i + 1;
                while (end < n
                        && !(text.charAt(end) == c
                                && (end + 1 >= n || text.charAt(end + 1) != c))) {
                    end += text.charAt(end) == c ? 2 : 1;
                }
                end = Math.min(end + 1, n);
                b.append(text, i, end);
                i = end;
                continue;
            }
            b.append(c);
            i++;
        }
        return b.toString();
    }

    private static int count(String s, char c) {
        int k = 0;
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) == c) {
                k++;
            }
        }
        return k;
    }
}
