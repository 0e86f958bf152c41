package dev.autocdc.job.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The parser's messages for a misspelt clause and a missing {@code ;}: the clause, the line and the
 * fix.
 */
class FlowSyntaxMessagesTest {
    private static final String FLOW =
            """
            CREATE OR REFRESH STREAMING TABLE t;

            CREATE FLOW f AS AUTO CDC INTO t
            FROM STREAM(src)
            KEYS (id)
            SEQUENCE BY seq
            %s;
            """;

    private static void rejects(String clauses, String message) {
        assertThatThrownBy(() -> FlowScript.parse(FLOW.formatted(clauses)))
                .as(clauses)
                .isInstanceOf(FlowSyntaxException.class)
                .hasMessage(message);
    }

    @Test
    void aMisspeltClauseIsNamedOnItsLine() {
        rejects(
                "STORED AS SCD TYPE 2\nTRACK HISTROY ON (name)",
                "line 8, TRACK HISTORY: 'TRACK HISTROY ON' looks like TRACK HISTORY ON; write"
                        + " TRACK HISTORY ON (col, ...) or TRACK HISTORY ON * EXCEPT (col, ...)");
        rejects(
                "STORED AS SCD TYPE 2 TRACK HISTORY (name)",
                "line 7, TRACK HISTORY: 'TRACK HISTORY' looks like TRACK HISTORY ON; write TRACK"
                        + " HISTORY ON (col, ...) or TRACK HISTORY ON * EXCEPT (col, ...)");
        rejects(
                "COLUMN * EXCEPT (op)",
                "line 7, COLUMNS: 'COLUMN' looks like COLUMNS; write COLUMNS (col, ...), COLUMNS *"
                        + " or COLUMNS * EXCEPT (col, ...)");
        rejects(
                "STORED SCD TYPE 2",
                "line 7, STORED AS: 'STORED' looks like STORED AS; write STORED AS SCD TYPE 1,"
                        + " STORED AS SCD TYPE 2 or STORED AS BITEMPORAL");
        rejects(
                "APLY AS DELETE WHEN op = 'D'",
                "line 7, APPLY AS DELETE WHEN: 'APLY AS DELETE WHEN' looks like APPLY AS DELETE"
                        + " WHEN; write APPLY AS DELETE WHEN condition");
    }

    @Test
    void aMisspeltClauseAfterAConditionIsNotReadAsPartOfIt() {
        rejects(
                "APPLY AS DELETE WHEN op = 'D'\nSTORED AZ SCD TYPE 2",
                "line 8, STORED AS: 'STORED AZ' looks like STORED AS; write STORED AS SCD TYPE 1,"
                        + " STORED AS SCD TYPE 2 or STORED AS BITEMPORAL");
    }

    @Test
    void wordsThatLookLikeNoClauseListTheClauses() {
        assertThatThrownBy(() -> FlowScript.parse(FLOW.formatted("PARTITION BY (id)")))
                .hasMessageStartingWith(
                        "line 7, AUTO CDC: unexpected 'PARTITION'; the clauses are");
    }

    @Test
    void aMissingSemicolonNamesTheStatementAndTheLineToEnd() {
        assertThatThrownBy(
                        () ->
                                FlowScript.parse(
                                        "CREATE OR REFRESH STREAMING TABLE t\n\n"
                                                + "CREATE FLOW f AS AUTO CDC INTO t FROM"
                                                + " STREAM(src) KEYS (id) SEQUENCE BY seq;"))
                .hasMessage(
                        "line 1, CREATE OR REFRESH STREAMING TABLE t: the statement runs on into"
                                + " CREATE on line 3; end the statement on line 1 with ;");
        for (String last : List.of("STORED AS SCD TYPE 2", "APPLY AS DELETE WHEN op = 'D'")) {
            rejects(
                    last
                            + "\n\nCREATE FLOW g AS AUTO CDC INTO u FROM STREAM(src) KEYS (id)"
                            + " SEQUENCE BY seq",
                    "line 7, CREATE FLOW f: the statement runs on into CREATE on line 9; end the"
                            + " statement on line 7 with ;");
        }
        rejects(
                "STORED AS SCD TYPE 2\nSET 'autocdc.f.block-size' = '8'",
                "line 7, CREATE FLOW f: the statement runs on into SET on line 8; end the"
                        + " statement on line 7 with ;");
    }

    @Test
    void aConditionKeepsItsLineForThePlanner() {
        FlowScript script = FlowScript.parse(FLOW.formatted("APPLY AS DELETE WHEN\n  op = 'D'"));
        FlowScript.FlowItem item = (FlowScript.FlowItem) script.items().get(1);
        assertThat(item.conditionLines()).containsEntry("APPLY AS DELETE WHEN", 8);
    }

    @Test
    void spellingAllowsOneEditInShortWordsAndTwoInLongOnes() {
        assertThat(Spelling.close("KEY", "KEYS")).isTrue();
        assertThat(Spelling.close("KYES", "KEYS")).isTrue();
        assertThat(Spelling.close("KEEP", "KEYS")).isFalse();
        assertThat(Spelling.close("HISTROY", "HISTORY")).isTrue();
        assertThat(Spelling.closest("jsn", List.of("csv", "json", "raw"))).isEqualTo("json");
        assertThat(Spelling.closest("avro", List.of("json", "raw"))).isNull();
    }
}
