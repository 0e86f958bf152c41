package dev.autocdc.job.flow;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A small SQL tokenizer for the AUTO CDC statements: enough to find clauses and keep expression
 * text.
 */
final class Tokens {

    enum Kind {
        WORD,
        QUOTED_ID,
        STRING,
        NUMBER,
        SYMBOL
    }

    /** One token; {@code start}/{@code end} are offsets into the statement text. */
    record Token(Kind kind, String text, int start, int end, int line) {
        boolean is(String word) {
            return kind == Kind.WORD && text.equalsIgnoreCase(word);
        }

        boolean isSymbol(String symbol) {
            return kind == Kind.SYMBOL && text.equals(symbol);
        }

        /** An identifier's name: a word as written, a quoted identifier without its backticks. */
        String name() {
            return kind == Kind.QUOTED_ID
                    ? text.substring(1, text.length() - 1).replace("``", "`")
                    : text;
        }

        String upper() {
            return text.toUpperCase(Locale.ROOT);
        }
    }

    private Tokens() {}

    /** Tokens of comment-free statement text; {@code firstLine} is the line the text starts on. */
    static List<Token> of(String text, int firstLine) {
        List<Token> out = new ArrayList<>();
        int line = firstLine;
        int i = 0;
        int n = text.length();
        while (i < n) {
            char c = text.charAt(i);
            if (c == '\n') {
                line++;
                i++;
                continue;
            }
            if (Character.isWhitespace(c)) {
                i++;
                continue;
            }
            int start = i;
            Kind kind;
            if (c == '\'' || c == '"' || c == '`') {
                int end = i + 1;
                while (end < n) {
                    if (text.charAt(end) == c) {
                        if (end + 1 < n && text.charAt(end + 1) == c) {
                            end += 2;
                            continue;
                        }
                        break;
                    }
                    end++;
                }
                if (end >= n) {
                    throw new FlowSyntaxException(
                            line, "quotes", "the quote " + c + " opened here is never closed");
                }
                i = end + 1;
                kind = c == '`' ? Kind.QUOTED_ID : Kind.STRING;
            } else if (Character.isLetter(c) || c == '_') {
                while (i < n
                        && (Character.isLetterOrDigit(text.charAt(i))
                                || text.charAt(i) == '_'
                                || text.charAt(i) == '$'
                                || (text.charAt(i) == '.'
                                        && i + 1 < n
                                        && (Character.isLetter(text.charAt(i + 1))
                                                || text.charAt(i + 1) == '_')))) {
                    i++;
                }
                kind = Kind.WORD;
            } else if (Character.isDigit(c)) {
                while (i < n
                        && (Character.isLetterOrDigit(text.charAt(i)) || text.charAt(i) == '.')) {
                    i++;
                }
                kind = Kind.NUMBER;
            } else {
                i++;
                if (i < n
                        && ((c == '<' && (text.charAt(i) == '=' || text.charAt(i) == '>'))
                                || (c == '>' && text.charAt(i) == '=')
                                || (c == '!' && text.charAt(i) == '=')
                                || (c == '|' && text.charAt(i) == '|'))) {
                    i++;
                }
                kind = Kind.SYMBOL;
            }
            String t = text.substring(start, i);
            out.add(new Token(kind, t, start, i, line));
            line += t.chars().filter(ch -> ch == '\n').count();
        }
        return out;
    }

    /**
     * Expression text as Flink SQL: string literals in double quotes (as the references write them,
     * {@code operation = "DELETE"}) become single-quoted literals.
     */
    static String flinkExpression(List<Token> tokens, String text) {
        if (tokens.isEmpty()) {
            return "";
        }
        StringBuilder b = new StringBuilder();
        int pos = tokens.get(0).start();
        for (Token t : tokens) {
            b.append(text, pos, t.start());
            if (t.kind() == Kind.STRING && t.text().startsWith("\"")) {
                String inner = t.text().substring(1, t.text().length() - 1).replace("\"\"", "\"");
                b.append('\'').append(inner.replace("'", "''")).append('\'');
            } else {
                b.append(t.text());
            }
            pos = t.end();
        }
        return b.toString().trim();
    }
}
