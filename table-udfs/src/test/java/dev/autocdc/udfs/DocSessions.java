package dev.autocdc.udfs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The SQL statements of a documented session: the {@code ```sql} block that follows the marker
 * {@code <!-- session: NAME -->} in a Markdown page, split into statements as the SQL client does
 * (at semicolons; comment lines dropped). Keeps the docs and the tests that run them one text.
 */
final class DocSessions {

    private DocSessions() {}

    static List<String> statements(Path markdown, String session) throws IOException {
        return split(block(markdown, session));
    }

    /** The text of the {@code ```sql} block after the marker, as written (a flow file, say). */
    static String block(Path markdown, String session) throws IOException {
        String text = Files.readString(markdown);
        String marker = "<!-- session: " + session + " -->";
        int at = text.indexOf(marker);
        if (at < 0) {
            throw new IllegalArgumentException(markdown + " has no " + marker);
        }
        int start = text.indexOf("```sql\n", at);
        int end = text.indexOf("\n```", start + 7);
        return text.substring(start + 7, end + 1);
    }

    /** A statement with its layout removed, to compare statements written on different lines. */
    static String normalized(String statement) {
        return statement.replaceAll("\\s+", " ").replace("( ", "(").replace(" )", ")").strip();
    }

    static List<String> split(String sql) {
        StringBuilder kept = new StringBuilder();
        for (String line : sql.split("\n")) {
            if (!line.strip().startsWith("--")) {
                kept.append(line).append('\n');
            }
        }
        List<String> out = new ArrayList<>();
        for (String s : kept.toString().split(";")) {
            if (!s.isBlank()) {
                out.add(s.strip());
            }
        }
        return out;
    }
}
