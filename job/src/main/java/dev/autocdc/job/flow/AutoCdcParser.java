package dev.autocdc.job.flow;

import dev.autocdc.job.flow.Tokens.Kind;
import dev.autocdc.job.flow.Tokens.Token;
import dev.autocdc.operators.core.AutoCdcFlow;
import dev.autocdc.operators.core.FlowDefinitionException;
import dev.autocdc.operators.core.TargetType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Parses one CREATE FLOW ... AS AUTO CDC INTO statement. */
final class AutoCdcParser {
    private final List<Token> tokens;
    private final String text;
    private final int line;
    private int pos;
    private final Set<String> seen = new HashSet<>();
    private final Map<String, Integer> conditionLines = new HashMap<>();
    private final Map<String, Integer> clauseStarts = new HashMap<>();
    private String statement = "CREATE FLOW";

    AutoCdcParser(List<Token> tokens, String text, int line) {
        this.tokens = tokens;
        this.text = text;
        this.line = line;
    }

    /**
     * {@code CREATE FLOW name AS AUTO CDC INTO target ...}; the legacy spelling {@code AS APPLY
     * CHANGES INTO} is the same statement, and a bare {@code APPLY CHANGES INTO target ...} is a
     * flow named after its target (the last part of its name), which stays the same across runs
     * since the name identifies the flow's state.
     */
    AutoCdcFlow parse() {
        String name;
        String target;
        if (at("APPLY", "CHANGES", "INTO")) {
            pos += 3;
            target = name("APPLY CHANGES INTO");
            name = target.substring(target.lastIndexOf('.') + 1);
            statement = "APPLY CHANGES INTO " + target;
        } else {
            expect("CREATE FLOW", "CREATE", "FLOW");
            name = name("CREATE FLOW");
            statement = "CREATE FLOW " + name;
            if (at("AS", "APPLY", "CHANGES", "INTO")) {
                pos += 4;
            } else {
                expect("AS AUTO CDC INTO", "AS", "AUTO", "CDC", "INTO");
            }
            target = name("AUTO CDC INTO");
        }
        AutoCdcFlow.Builder b = from(target).name(name).line(line);
        while (pos < tokens.size()) {
            clause(b);
        }
        if (!seen.contains("KEYS")) {
            throw new FlowSyntaxException(line, "KEYS", "flow " + name + " needs KEYS (col, ...)");
        }
        if (!seen.contains("SEQUENCE BY")) {
            throw new FlowSyntaxException(
                    line,
                    "SEQUENCE BY",
                    "flow " + name + " needs SEQUENCE BY col (or STRUCT(c1, c2))");
        }
        if (!seen.contains("STORED AS")) {
            b.storedAs(TargetType.SCD1); // the references' default
        }
        try {
            return b.build();
        } catch (FlowDefinitionException e) {
            throw new FlowSyntaxException(
                    ClauseLines.lineOf(conditionLines(), e, line), e.clause(), e.detail());
        }
    }

    /**
     * The script line each condition of the flow parsed last starts on, by its clause ({@code APPLY
     * AS DELETE WHEN}, ...), and the lines of its other clauses and their names ({@link
     * ClauseLines}), for the planner's messages.
     */
    Map<String, Integer> conditionLines() {
        Map<String, Integer> lines = ClauseLines.of(tokens, clauseStarts);
        lines.putAll(conditionLines);
        return Map.copyOf(lines);
    }

    /**
     * {@code FROM source}, {@code FROM STREAM(source)} or {@code FROM SNAPSHOT(source)}: the
     * builder of a flow from it into {@code target}.
     */
    private AutoCdcFlow.Builder from(String target) {
        expect("FROM", "FROM");
        if (at("STREAM") && pos + 1 < tokens.size() && tokens.get(pos + 1).isSymbol("(")) {
            pos += 2;
            String source = name("FROM STREAM(source)");
            expectSymbol("FROM STREAM(source)", ")");
            return AutoCdcFlow.builder(target, source);
        }
        if (at("SNAPSHOT") && pos + 1 < tokens.size() && tokens.get(pos + 1).isSymbol("(")) {
            pos += 2;
            String source = name("FROM SNAPSHOT(source)");
            expectSymbol("FROM SNAPSHOT(source)", ")");
            return AutoCdcFlow.fromSnapshot(target, source);
        }
        return AutoCdcFlow.builder(target, name("FROM"));
    }

    /** One clause after the source, given to the builder; each clause at most once. */
    private void clause(AutoCdcFlow.Builder b) {
        Token t = tokens.get(pos);
        if (at("KEYS")) {
            clause("KEYS");
            pos++;
            b.keys(list("KEYS"));
        } else if (at("APPLY", "AS", "DELETE", "WHEN")) {
            clause("APPLY AS DELETE WHEN");
            pos += 4;
            b.applyAsDeletes(expression("APPLY AS DELETE WHEN"));
        } else if (at("APPLY", "AS", "SNAPSHOT", "END", "WHEN")) {
            clause("APPLY AS SNAPSHOT END WHEN");
            pos += 5;
            b.applyAsSnapshotEnd(expression("APPLY AS SNAPSHOT END WHEN"));
        } else if (at("APPLY", "AS", "TRUNCATE", "WHEN")) {
            clause("APPLY AS TRUNCATE WHEN");
            pos += 4;
            b.applyAsTruncates(expression("APPLY AS TRUNCATE WHEN"));
        } else if (at("SEQUENCE", "BY")) {
            clause("SEQUENCE BY");
            pos += 2;
            sequenceBy(b);
        } else if (at("SYSTEM", "SEQUENCE", "BY")) {
            clause("SYSTEM SEQUENCE BY");
            pos += 3;
            b.systemSequenceBy(name("SYSTEM SEQUENCE BY"));
        } else if (at("COLUMNS", "TO", "UPDATE")) {
            clause("COLUMNS TO UPDATE");
            pos += 3;
            b.columnsToUpdate(name("COLUMNS TO UPDATE"));
        } else if (at("COLUMNS")) {
            clause("COLUMNS");
            pos++;
            columns(b);
        } else if (at("IGNORE", "NULL", "UPDATES")) {
            clause("IGNORE NULL UPDATES");
            pos += 3;
            ignoreNullUpdates(b);
        } else if (at("STORED", "AS")) {
            clause("STORED AS");
            pos += 2;
            storedAs(b);
        } else if (at("TRACK", "HISTORY", "ON")) {
            clause("TRACK HISTORY");
            pos += 3;
            trackHistory(b);
        } else if (StatementEnd.startsStatement(tokens, pos)) {
            throw StatementEnd.missing(tokens, pos, statement);
        } else {
            FlowSyntaxException misspelt = ClauseSpelling.atClause(tokens, pos);
            if (misspelt != null) {
                throw misspelt;
            }
            throw error(
                    t,
                    "AUTO CDC",
                    "unexpected '"
                            + t.text()
                            + "'; the clauses are KEYS, APPLY AS DELETE WHEN, APPLY AS"
                            + " TRUNCATE WHEN, APPLY AS SNAPSHOT END WHEN, SEQUENCE BY,"
                            + " SYSTEM SEQUENCE BY, COLUMNS,"
                            + " IGNORE NULL UPDATES, COLUMNS TO UPDATE, STORED AS, TRACK"
                            + " HISTORY ON");
        }
    }

    /** After {@code SEQUENCE BY}: {@code col} or {@code STRUCT(c1, c2, ...)}. */
    private void sequenceBy(AutoCdcFlow.Builder b) {
        if (at("STRUCT") && pos + 1 < tokens.size() && tokens.get(pos + 1).isSymbol("(")) {
            pos++;
            b.sequenceByStruct(list("SEQUENCE BY STRUCT"));
        } else {
            b.sequenceBy(name("SEQUENCE BY"));
        }
    }

    /** After {@code COLUMNS}: {@code (c1, ...)}, {@code *} or {@code * EXCEPT (c1, ...)}. */
    private void columns(AutoCdcFlow.Builder b) {
        if (atSymbol("*")) {
            pos++;
            if (at("EXCEPT")) {
                pos++;
                b.exceptColumnList(list("COLUMNS * EXCEPT"));
            }
        } else {
            b.columnList(list("COLUMNS"));
        }
    }

    /**
     * After {@code IGNORE NULL UPDATES}: nothing (every column), {@code ON (c1, ...)} or {@code ON
     * * EXCEPT (c1, ...)}.
     */
    private void ignoreNullUpdates(AutoCdcFlow.Builder b) {
        if (at("ON")) {
            pos++;
            if (atSymbol("*")) {
                pos++;
                expect("IGNORE NULL UPDATES ON * EXCEPT", "EXCEPT");
                b.ignoreNullUpdatesExceptColumnList(list("IGNORE NULL UPDATES ON * EXCEPT"));
            } else {
                b.ignoreNullUpdatesColumnList(list("IGNORE NULL UPDATES ON"));
            }
        } else {
            b.ignoreNullUpdates(true);
        }
    }

    /** After {@code STORED AS}: {@code SCD TYPE 1}, {@code SCD TYPE 2} or {@code BITEMPORAL}. */
    private void storedAs(AutoCdcFlow.Builder b) {
        if (at("SCD", "TYPE")) {
            pos += 2;
            Token n = next("STORED AS SCD TYPE");
            if (!n.text().equals("1") && !n.text().equals("2")) {
                throw error(n, "STORED AS", "SCD TYPE must be 1 or 2, not " + n.text());
            }
            b.storedAsScdType(n.text());
        } else if (at("BITEMPORAL")) {
            pos++;
            b.storedAs(TargetType.BITEMPORAL);
        } else {
            throw error(
                    current(), "STORED AS", "write STORED AS SCD TYPE 1, SCD TYPE 2 or BITEMPORAL");
        }
    }

    /**
     * After {@code TRACK HISTORY ON}: {@code (c1, ...)}, {@code *} or {@code * EXCEPT (c1, ...)}.
     */
    private void trackHistory(AutoCdcFlow.Builder b) {
        if (atSymbol("*")) {
            pos++;
            if (at("EXCEPT")) {
                pos++;
                b.trackHistoryExceptColumnList(list("TRACK HISTORY ON * EXCEPT"));
            } else {
                b.trackHistoryExceptColumnList(List.of());
            }
        } else {
            b.trackHistoryColumnList(list("TRACK HISTORY ON"));
        }
    }

    private void clause(String clause) {
        if (!seen.add(clause)) {
            throw error(current(), clause, "the clause is given twice; keep one");
        }
        clauseStarts.put(clause, pos);
    }

    private boolean at(String... words) {
        return FlowScript.matchesAt(tokens, pos, words);
    }

    private boolean atSymbol(String symbol) {
        return pos < tokens.size() && tokens.get(pos).isSymbol(symbol);
    }

    private Token current() {
        return pos < tokens.size() ? tokens.get(pos) : tokens.get(tokens.size() - 1);
    }

    private Token next(String clause) {
        if (pos >= tokens.size()) {
            throw new FlowSyntaxException(
                    tokens.get(tokens.size() - 1).line(), clause, "the statement ends too early");
        }
        return tokens.get(pos++);
    }

    private void expect(String clause, String... words) {
        for (String w : words) {
            Token t = next(clause);
            if (!t.is(w)) {
                throw error(t, clause, "expected " + w + " but found '" + t.text() + "'");
            }
        }
    }

    private void expectSymbol(String clause, String symbol) {
        Token t = next(clause);
        if (!t.isSymbol(symbol)) {
            throw error(t, clause, "expected '" + symbol + "' but found '" + t.text() + "'");
        }
    }

    private String name(String clause) {
        Token t = next(clause);
        if (t.kind() != Kind.WORD && t.kind() != Kind.QUOTED_ID) {
            throw error(t, clause, "expected a name but found '" + t.text() + "'");
        }
        return t.name();
    }

    /** ( name, name, ... ) */
    private List<String> list(String clause) {
        expectSymbol(clause, "(");
        List<String> names = new ArrayList<>();
        while (true) {
            names.add(name(clause));
            Token t = next(clause);
            if (t.isSymbol(")")) {
                return names;
            }
            if (!t.isSymbol(",")) {
                throw error(
                        t,
                        clause,
                        "expected ',' or ')' in the column list but found '" + t.text() + "'");
            }
        }
    }

    /** Tokens up to the next clause keyword at parenthesis depth 0, as Flink SQL text. */
    private String expression(String clause) {
        int start = pos;
        int depth = 0;
        while (pos < tokens.size()) {
            Token t = tokens.get(pos);
            if (t.isSymbol("(")) {
                depth++;
            } else if (t.isSymbol(")")) {
                depth--;
            } else if (depth == 0 && startsClause()) {
                break;
            } else if (depth == 0) {
                refuseRunOn(start);
            }
            pos++;
        }
        if (pos == start) {
            throw error(
                    current(),
                    clause,
                    "needs a boolean expression, for example operation = 'DELETE'");
        }
        conditionLines.put(clause, tokens.get(start).line());
        return Tokens.flinkExpression(tokens.subList(start, pos), text);
    }

    /**
     * Refuses what a condition cannot hold at parenthesis depth 0: the start of the next statement
     * on a line of its own (a missing {@code ;}) or a misspelt clause.
     */
    private void refuseRunOn(int start) {
        if (pos > start
                && tokens.get(pos).line() > tokens.get(pos - 1).line()
                && StatementEnd.startsStatement(tokens, pos)) {
            throw StatementEnd.missing(tokens, pos, statement);
        }
        FlowSyntaxException misspelt = ClauseSpelling.inCondition(tokens, pos);
        if (misspelt != null) {
            throw misspelt;
        }
    }

    private boolean startsClause() {
        return at("KEYS")
                || at("APPLY", "AS")
                || at("SEQUENCE", "BY")
                || at("SYSTEM", "SEQUENCE", "BY")
                || at("COLUMNS")
                || at("IGNORE", "NULL", "UPDATES")
                || at("STORED", "AS")
                || at("TRACK", "HISTORY");
    }

    private FlowSyntaxException error(Token at, String clause, String message) {
        return new FlowSyntaxException(at.line(), clause, message);
    }
}
