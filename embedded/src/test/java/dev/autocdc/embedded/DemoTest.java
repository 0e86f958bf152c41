package dev.autocdc.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The embedded default, as the README's first command runs it: every table equals the reference.
 */
class DemoTest {
    @Test
    void theDemoReproducesEveryReferenceTable() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        boolean ok = Demo.run(new PrintStream(out, true, StandardCharsets.UTF_8));
        String printed = out.toString(StandardCharsets.UTF_8);
        assertThat(ok).as(printed).isTrue();
        assertThat(printed)
                .contains(
                        "Every table equals the reference.",
                        "what did we believe on 2025-03-10 00:00:00 about 2025-02-15",
                        "employees_from_snapshots after four snapshots (semantics §13 H)");
        assertThat(printed.split("matches the reference", -1)).hasSize(17); // 16 tables
        assertThat(printed).doesNotContain("DIFFERS");
    }

    /**
     * {@code demo --target paimon}: the employees' history in a Paimon table, asked in batch SQL.
     */
    @Test
    void thePaimonDemoAnswersTheQuestionsFromTheTable() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        boolean ok = Demo.run(new PrintStream(out, true, StandardCharsets.UTF_8), "paimon", "json");
        String printed = out.toString(StandardCharsets.UTF_8);
        assertThat(ok).as(printed).isTrue();
        assertThat(printed)
                .contains(
                        "Every table equals the reference.",
                        "== what did we believe on 2025-03-10 about 2025-02-15",
                        "FROM lake.hr.employees");
        assertThat(printed.split("matches the reference", -1)).hasSize(5); // 4 answers
        assertThat(printed).doesNotContain("DIFFERS");
    }
}
