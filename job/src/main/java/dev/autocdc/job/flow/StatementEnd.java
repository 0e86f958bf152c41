package dev.autocdc.job.flow;

import dev.autocdc.job.flow.Tokens.Kind;
import dev.autocdc.job.flow.Tokens.Token;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Recognizes a statement that runs on into the next because a {@code ;} is missing: a word that
 * starts a statement ({@code CREATE}, {@code INSERT}, {@code SET}, ...) where the statement before
 * cannot take it. The error is on the line where the {@code ;} goes, and says so.
 */
public final class StatementEnd {
    private static final Set<String> STARTS =
            Set.of("CREATE", "INSERT", "SET", "RESET", "ALTER", "DROP", "USE", "EXECUTE");

    /** The words before a statement's name. */
    private static final Set<String> LEADING =
            Set.of(
                    "CREATE",
                    "OR",
                    "REPLACE",
                    "TEMPORARY",
                    "TABLE",
                    "VIEW",
                    "IF",
                    "NOT",
                    "EXISTS",
                    "INSERT",
                    "INTO",
                    "OVERWRITE",
                    "FUNCTION");

    /** Flink's parser naming the token it did not expect, and where, in the statement's text. */
    private static final Pattern ENCOUNTERED =
            Pattern.compile("Encountered \"(\\w+)[^\"]*\" at line (\\d+), column (\\d+)");

    private StatementEnd() {}

    /** Whether the token at {@code pos} starts a statement (a bare APPLY CHANGES INTO too). */
    static boolean startsStatement(List<Token> tokens, int pos) {
        Token t = tokens.get(pos);
        return t.kind() == Kind.WORD && STARTS.contains(t.upper())
                || FlowScript.matchesAt(tokens, pos, "APPLY", "CHANGES", "INTO");
    }

    /**
     * The error for a statement that runs on into the statement starting at {@code pos}.
     *
     * @param clause the statement, as messages name it
     */
    static FlowSyntaxException missing(List<Token> tokens, int pos, String clause) {
        return missing(tokens.get(pos - 1).line(), tokens.get(pos), clause);
    }

    private static FlowSyntaxException missing(int lastLine, Token next, String clause) {
        return new FlowSyntaxException(
                lastLine,
                clause,
                "the statement runs on into "
                        + next.upper()
                        + " on line "
                        + next.line()
                        + "; end the statement on line "
                        + lastLine
                        + " with ;");
    }

    /**
     * The error for a statement Flink could not parse because it runs on into the next, or null
     * when Flink failed for another reason.
     *
     * @param text the statement as Flink was given it, without comments
     * @param firstLine the script line {@code text} starts on
     * @param failure what Flink threw
     */
    public static FlowSyntaxException inFlinkError(String text, int firstLine, Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            Matcher m = t.getMessage() == null ? null : ENCOUNTERED.matcher(t.getMessage());
            if (m != null && m.find()) {
                if (!STARTS.contains(m.group(1).toUpperCase(Locale.ROOT))) {
                    return null;
                }
                try {
                    return at(text, firstLine, Integer.parseInt(m.group(2)) + firstLine - 1);
                } catch (FlowSyntaxException unreadable) {
                    return null;
                }
            }
        }
        return null;
    }

    /**
     * The error for a statement that is not the one its first words start, when a later line starts
     * another statement; null otherwise.
     *
     * @param text the statement, without comments
     * @param firstLine the script line {@code text} starts on
     */
    public static FlowSyntaxException runsOn(String text, int firstLine) {
        List<Token> tokens = Tokens.of(text, firstLine);
        for (int i = 1; i < tokens.size(); i++) {
            if (tokens.get(i).line() > tokens.get(i - 1).line() && startsStatement(tokens, i)) {
                return missing(tokens, i, name(tokens));
            }
        }
        return null;
    }

    /**
     * The error for the statement in {@code text} that runs on into a statement on {@code line}.
     */
    private static FlowSyntaxException at(String text, int firstLine, int line) {
        List<Token> tokens = Tokens.of(text, firstLine);
        for (int i = 1; i < tokens.size(); i++) {
            if (tokens.get(i).line() == line && startsStatement(tokens, i)) {
                return missing(tokens, i, name(tokens));
            }
        }
        return null;
    }

    /** The statement's first words, up to its name: CREATE TABLE users, SET, INSERT INTO t. */
    private static String name(List<Token> tokens) {
        StringBuilder b = new StringBuilder();
        for (Token t : tokens) {
            if (t.kind() == Kind.SYMBOL || t.kind() == Kind.STRING) {
                break;
            }
            boolean leading = t.kind() == Kind.WORD && LEADING.contains(t.upper());
            b.append(b.isEmpty() ? "" : " ").append(leading ? t.upper() : t.text());
            if (!leading) {
                break;
            }
        }
        return b.toString();
    }
}
