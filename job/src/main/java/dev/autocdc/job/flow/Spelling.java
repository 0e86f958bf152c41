package dev.autocdc.job.flow;

import java.util.Collection;
import java.util.Locale;

/**
 * How close two words are, ignoring case, for messages that name what a misspelt word looks like: a
 * keyword of a clause, a format, a connector. A word of up to four letters is close to another at
 * one edit (a letter added, dropped, changed, or two swapped), a longer word at two.
 */
public final class Spelling {
    private Spelling() {}

    /** Whether {@code written} is a misspelling of {@code meant}, or {@code meant} itself. */
    public static boolean close(String written, String meant) {
        return distance(written, meant) <= (meant.length() <= 4 ? 1 : 2);
    }

    /** The candidate {@code written} is closest to and {@link #close} to, or null. */
    public static String closest(String written, Collection<String> candidates) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String c : candidates) {
            int d = distance(written, c);
            if (close(written, c) && d < bestDistance) {
                best = c;
                bestDistance = d;
            }
        }
        return best;
    }

    /**
     * The edits (insert, delete, substitute, swap two neighbours) that turn one word into the
     * other, ignoring case.
     */
    public static int distance(String a, String b) {
        String s = a.toUpperCase(Locale.ROOT);
        String t = b.toUpperCase(Locale.ROOT);
        int[][] d = new int[s.length() + 1][t.length() + 1];
        for (int i = 0; i <= s.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= t.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= s.length(); i++) {
            for (int j = 1; j <= t.length(); j++) {
                int cost = s.charAt(i - 1) == t.charAt(j - 1) ? 0 : 1;
                d[i][j] =
                        Math.min(
                                Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1
                        && j > 1
                        && s.charAt(i - 1) == t.charAt(j - 2)
                        && s.charAt(i - 2) == t.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[s.length()][t.length()];
    }
}
