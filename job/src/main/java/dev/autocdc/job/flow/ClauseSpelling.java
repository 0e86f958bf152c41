package dev.autocdc.job.flow;

import dev.autocdc.job.flow.Tokens.Kind;
import dev.autocdc.job.flow.Tokens.Token;
import java.util.ArrayList;
import java.util.List;

/**
 * Names the AUTO CDC clause that words the parser does not know look like: {@code TRACK HISTROY ON}
 * is TRACK HISTORY ON, {@code KEY (id)} is KEYS, {@code TRACK HISTORY (a)} lacks its ON. Each word
 * must be {@link Spelling#close} to the clause's; after a clause, a misspelt clause of two or more
 * words would be read into a condition, so there all its words must be present.
 */
final class ClauseSpelling {
    /** A clause: its name in messages, its words, and how it is written. */
    private record Clause(String name, List<String> words, String usage) {
        Clause(String name, String words, String usage) {
            this(name, List.of(words.split(" ")), usage);
        }
    }

    private static final List<Clause> CLAUSES =
            List.of(
                    new Clause("KEYS", "KEYS", "KEYS (col, ...)"),
                    new Clause(
                            "APPLY AS DELETE WHEN",
                            "APPLY AS DELETE WHEN",
                            "APPLY AS DELETE WHEN condition"),
                    new Clause(
                            "APPLY AS TRUNCATE WHEN",
                            "APPLY AS TRUNCATE WHEN",
                            "APPLY AS TRUNCATE WHEN condition"),
                    new Clause(
                            "APPLY AS SNAPSHOT END WHEN",
                            "APPLY AS SNAPSHOT END WHEN",
                            "APPLY AS SNAPSHOT END WHEN condition"),
                    new Clause(
                            "SEQUENCE BY",
                            "SEQUENCE BY",
                            "SEQUENCE BY col or SEQUENCE BY STRUCT(c1, c2, ...)"),
                    new Clause(
                            "SYSTEM SEQUENCE BY", "SYSTEM SEQUENCE BY", "SYSTEM SEQUENCE BY col"),
                    new Clause("COLUMNS TO UPDATE", "COLUMNS TO UPDATE", "COLUMNS TO UPDATE col"),
                    new Clause(
                            "COLUMNS",
                            "COLUMNS",
                            "COLUMNS (col, ...), COLUMNS * or COLUMNS * EXCEPT (col, ...)"),
                    new Clause(
                            "IGNORE NULL UPDATES",
                            "IGNORE NULL UPDATES",
                            "IGNORE NULL UPDATES, IGNORE NULL UPDATES ON (col, ...) or IGNORE NULL"
                                    + " UPDATES ON * EXCEPT (col, ...)"),
                    new Clause(
                            "STORED AS",
                            "STORED AS",
                            "STORED AS SCD TYPE 1, STORED AS SCD TYPE 2 or STORED AS BITEMPORAL"),
                    new Clause(
                            "TRACK HISTORY",
                            "TRACK HISTORY ON",
                            "TRACK HISTORY ON (col, ...) or TRACK HISTORY ON * EXCEPT (col, ...)"));

    private ClauseSpelling() {}

    /**
     * Where a clause is expected: the clause the words at {@code pos} look like, as an error on
     * their line; null when they look like none.
     */
    static FlowSyntaxException atClause(List<Token> tokens, int pos) {
        return misspelt(tokens, pos, true);
    }

    /**
     * Inside a condition: a misspelt clause of two or more words, all present, as an error on its
     * line; null otherwise.
     */
    static FlowSyntaxException inCondition(List<Token> tokens, int pos) {
        return misspelt(tokens, pos, false);
    }

    private static FlowSyntaxException misspelt(List<Token> tokens, int pos, boolean atClause) {
        Clause best = null;
        int bestMatched = 0;
        int bestEdits = Integer.MAX_VALUE;
        for (Clause c : CLAUSES) {
            int matched = 0;
            int edits = 0;
            while (matched < c.words().size()
                    && pos + matched < tokens.size()
                    && tokens.get(pos + matched).kind() == Kind.WORD
                    && Spelling.close(tokens.get(pos + matched).text(), c.words().get(matched))) {
                edits +=
                        Spelling.distance(tokens.get(pos + matched).text(), c.words().get(matched));
                matched++;
            }
            boolean whole = matched == c.words().size();
            boolean lacksLast = atClause && matched > 0 && matched == c.words().size() - 1;
            if (!whole && !lacksLast || whole && edits == 0 || !atClause && matched < 2) {
                continue;
            }
            int total = edits + (whole ? 0 : 1);
            if (matched > bestMatched || matched == bestMatched && total < bestEdits) {
                best = c;
                bestMatched = matched;
                bestEdits = total;
            }
        }
        if (best == null) {
            return null;
        }
        List<String> written = new ArrayList<>();
        for (int i = 0; i < bestMatched; i++) {
            written.add(tokens.get(pos + i).text());
        }
        return new FlowSyntaxException(
                tokens.get(pos).line(),
                best.name(),
                "'"
                        + String.join(" ", written)
                        + "' looks like "
                        + String.join(" ", best.words())
                        + "; write "
                        + best.usage());
    }
}
