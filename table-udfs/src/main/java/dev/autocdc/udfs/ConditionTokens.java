package dev.autocdc.udfs;

import java.util.ArrayList;
import java.util.List;

/**
 * The tokens of a {@link DeleteCondition}'s text: words (names and keywords), backquoted names,
 * string literals in single quotes (a doubled quote is one quote), unsigned numbers, and the
 * symbols {@code ( ) , = <> != < <= > >=}; blanks separate them. Stateless.
 */
final class ConditionTokens {
    enum Type {
        WORD,
        QUOTED,
        STRING,
        NUMBER,
        SYMBOL
    }

    /** A token: its type, its text (a literal's or quoted name's without the quotes) and offset. */
    static final class Token {
        final Type type;
        final String text;
        final int offset;

        Token(Type type, String text, int offset) {
            this.type = type;
            this.text = text;
            this.offset = offset;
        }
    }

    private ConditionTokens() {}

    /**
     * The tokens of {@code text}.
     *
     * @throws IllegalArgumentException on a character no token starts with, or an unclosed quote,
     *     naming its position
     */
    static List<Token> of(String text) {
        List<Token> out = new ArrayList<>();
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            int start = i;
            if (Character.isWhitespace(c)) {
                i++;
            } else if (c == '\'' || c == '`') {
                StringBuilder b = new StringBuilder();
                i = quoted(text, i, c, b);
                out.add(new Token(c == '\'' ? Type.STRING : Type.QUOTED, b.toString(), start));
            } else if (Character.isDigit(c)
                    || (c == '.'
                            && i + 1 < text.length()
                            && Character.isDigit(text.charAt(i + 1)))) {
                while (i < text.length()
                        && (Character.isDigit(text.charAt(i)) || text.charAt(i) == '.')) {
                    i++;
                }
                out.add(new Token(Type.NUMBER, text.substring(start, i), start));
            } else if (Character.isLetter(c) || c == '_') {
                while (i < text.length()
                        && (Character.isLetterOrDigit(text.charAt(i)) || text.charAt(i) == '_')) {
                    i++;
                }
                out.add(new Token(Type.WORD, text.substring(start, i), start));
            } else {
                String two = i + 1 < text.length() ? text.substring(i, i + 2) : "";
                String symbol =
                        two.equals("<>") || two.equals("!=") || two.equals("<=") || two.equals(">=")
                                ? two
                                : "(),=<>".indexOf(c) >= 0 ? String.valueOf(c) : null;
                if (symbol == null) {
                    throw new IllegalArgumentException(
                            "unexpected character " + c + " (at character " + (i + 1) + ")");
                }
                i += symbol.length();
                out.add(new Token(Type.SYMBOL, symbol, start));
            }
        }
        return out;
    }

    /** Reads a quoted token starting at {@code i} into {@code b}; returns the index after it. */
    private static int quoted(String text, int i, char quote, StringBuilder b) {
        int start = i++;
        while (i < text.length()) {
            char c = text.charAt(i++);
            if (c != quote) {
                b.append(c);
            } else if (i < text.length() && text.charAt(i) == quote) {
                b.append(quote); // doubled: one quote
                i++;
            } else {
                return i;
            }
        }
        throw new IllegalArgumentException(
                "the quote " + quote + " at character " + (start + 1) + " is not closed");
    }
}
