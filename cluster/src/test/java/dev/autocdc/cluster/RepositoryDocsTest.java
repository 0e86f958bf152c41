package dev.autocdc.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The docs against the code: every citation of the contract ("semantics §n", "semantics §13 C",
 * "semantics §3-5") in the repository's code and docs lands on a section of docs/semantics.md, and
 * every class docs/architecture.md names in backticks exists (with the member or the path it
 * gives).
 */
class RepositoryDocsTest {
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    private static final Pattern CITATION =
            Pattern.compile("semantics §(\\d+)(?:-(\\d+))?(?: ([A-Z])(?![A-Za-z]))?");
    private static final Pattern SECTION = Pattern.compile("(?m)^## (\\d+)\\. ");
    private static final Pattern EXAMPLE = Pattern.compile("(?m)^### ([A-Z])\\. ");

    /** A class, a class's member or nested class, or a path ending in a class: `a/.../b/Name`. */
    private static final Pattern CLASS_NAME =
            Pattern.compile("`((?:[\\w.-]+/)*)([A-Z][a-z]\\w*)(?:\\.([A-Za-z]\\w*))?`");

    @Test
    void everyCitationOfTheContractLandsOnASection() throws IOException {
        String contract = Files.readString(ROOT.resolve("docs/semantics.md"));
        Set<Integer> sections = new TreeSet<>();
        for (Matcher m = SECTION.matcher(contract); m.find(); ) {
            sections.add(Integer.parseInt(m.group(1)));
        }
        String examples13 = contract.substring(contract.indexOf("\n## 13. "));
        examples13 = examples13.substring(0, examples13.indexOf("\n## 14. "));
        Set<String> letters = new TreeSet<>();
        for (Matcher m = EXAMPLE.matcher(examples13); m.find(); ) {
            letters.add(m.group(1));
        }
        assertThat(sections).as("the contract's sections").hasSize(14).contains(1, 14);
        assertThat(letters).as("the worked examples of §13").contains("A", "H");

        List<String> wrong = new ArrayList<>();
        int citations = 0;
        for (Path file : sources(".java", ".md")) {
            String text = Files.readString(file);
            for (Matcher m = CITATION.matcher(text); m.find(); citations++) {
                int from = Integer.parseInt(m.group(1));
                int to = m.group(2) == null ? from : Integer.parseInt(m.group(2));
                boolean ok = sections.contains(from) && sections.contains(to) && from <= to;
                if (from == 13 && m.group(3) != null) {
                    ok &= letters.contains(m.group(3));
                }
                if (!ok) {
                    wrong.add(ROOT.relativize(file) + ": " + m.group());
                }
            }
        }
        assertThat(citations).as("citations found").isGreaterThan(100);
        assertThat(wrong).as("citations that land on no section of docs/semantics.md").isEmpty();
    }

    @Test
    void everyClassTheArchitecturePageNamesExists() throws IOException {
        String page = Files.readString(ROOT.resolve("docs/architecture.md"));
        List<Path> java = sources(".java");
        List<String> missing = new ArrayList<>();
        int named = 0;
        for (Matcher m = CLASS_NAME.matcher(page); m.find(); named++) {
            String path = m.group(1);
            String name = m.group(2);
            String member = m.group(3);
            Path file = null;
            for (Path p : java) {
                String relative = ROOT.relativize(p).toString();
                if (p.getFileName().toString().equals(name + ".java")
                        && matchesPath(relative, path)) {
                    file = p;
                    break;
                }
            }
            if (file == null) {
                missing.add(m.group());
            } else if (member != null
                    && !Pattern.compile("\\b" + member + "\\b")
                            .matcher(Files.readString(file))
                            .find()) {
                missing.add(m.group() + " (no " + member + " in " + ROOT.relativize(file) + ")");
            }
        }
        assertThat(named).as("classes named").isGreaterThan(80);
        assertThat(missing).as("named in docs/architecture.md, not in the code").isEmpty();
    }

    /** {@code job/.../flow/} matches a file under {@code job/} in a folder {@code flow}. */
    private static boolean matchesPath(String relative, String path) {
        if (path.isEmpty()) {
            return true;
        }
        String[] parts = path.split("/\\.\\.\\./", 2);
        String head = parts[0].endsWith("/") ? parts[0] : parts[0] + "/";
        if (parts.length == 1) {
            return relative.startsWith(head) || relative.contains("/" + head);
        }
        return relative.startsWith(head) && relative.contains("/" + parts[1]);
    }

    private static List<Path> sources(String... endings) {
        try (Stream<Path> files = Files.walk(ROOT)) {
            return files.filter(
                            p -> {
                                String s = ROOT.relativize(p).toString();
                                boolean built =
                                        (s.startsWith("target/") || s.contains("/target/"))
                                                && !s.contains("/src/");
                                return !s.startsWith(".")
                                        && !built
                                        && Stream.of(endings).anyMatch(s::endsWith);
                            })
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
