package dev.autocdc.udfs;

import dev.autocdc.operators.core.FlowDefinitionException;
import dev.autocdc.operators.flink.spec.FlowMapping;
import dev.autocdc.udfs.ConditionOperand.Kind;
import java.io.Serializable;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * The {@code apply_as_deletes} argument of {@code AUTO_CDC}: a condition on the input row that
 * makes the event a delete, read once from the argument's text and tested on each row ({@link
 * #test}). A process table function's arguments are constants and Flink gives a function no
 * evaluator of SQL text, so the function reads this part of SQL's conditions (keywords in any
 * case):
 *
 * <pre>
 * condition := and { OR and }
 * and       := not { AND not }
 * not       := NOT not | '(' condition ')' | test
 * test      := operand [ compare operand | IS [NOT] (NULL | TRUE | FALSE)
 *                      | [NOT] IN '(' operand { ',' operand } ')' ]
 * compare   := = | &lt;&gt; | != | &lt; | &lt;= | &gt; | &gt;=
 * operand   := column | `quoted column` | 'text' | number | TRUE | FALSE | NULL
 * </pre>
 *
 * <p>A column is an input column of a character string, boolean or numeric type; an operand alone
 * must be boolean. Both sides of a comparison are of one kind (strings, booleans or numbers, by
 * value). The logic is SQL's, with three values: a row is a delete when the condition is TRUE, not
 * when it is NULL. Anything else (a function call, a cast, a column of another type) is refused at
 * planning time, naming the position; compute such a test as a BOOLEAN column in the input view.
 */
final class DeleteCondition implements Serializable {
    private static final long serialVersionUID = 1L;

    private static final String ARGUMENT = "apply_as_deletes";
    private static final Set<String> KEYWORDS =
            Set.of("AND", "OR", "NOT", "IS", "IN", "NULL", "TRUE", "FALSE");
    private static final Set<String> COMPARISONS = Set.of("=", "<>", "!=", "<", "<=", ">", ">=");

    /** A node of the condition: TRUE, FALSE or null (SQL's NULL) for a row. */
    interface Node extends Serializable {
        Boolean test(RowData row);
    }

    private final Node root;

    private DeleteCondition(Node root) {
        this.root = root;
    }

    /**
     * Reads {@code text} against the input's columns; a mistake fails with a {@link
     * ValidationException} that names the argument, the position and the fix.
     */
    static DeleteCondition parse(String function, String text, RowType input) {
        Reader r = new Reader(function, text, input);
        Node root = r.condition();
        if (r.pos < r.tokens.size()) {
            throw r.error(
                    "unexpected " + r.tokens.get(r.pos).text + "; expected AND, OR or the end");
        }
        return new DeleteCondition(root);
    }

    /** Whether the row is a delete: the condition is TRUE (not FALSE, not NULL). */
    boolean test(RowData row) {
        return Boolean.TRUE.equals(root.test(row));
    }

    /** The recursive-descent reader of one condition's tokens. */
    private static final class Reader {
        final String function;
        final String text;
        final RowType input;
        final List<ConditionTokens.Token> tokens;
        int pos;

        Reader(String function, String text, RowType input) {
            this.function = function;
            this.text = text;
            this.input = input;
            try {
                this.tokens = ConditionTokens.of(text);
            } catch (IllegalArgumentException e) {
                throw AutoCdcPlan.error(function, ARGUMENT, message(e.getMessage()));
            }
            if (tokens.isEmpty()) {
                throw error("is empty");
            }
        }

        Node condition() {
            Node left = and();
            while (keyword("OR")) {
                Node l = left;
                Node r = and();
                left = row -> sqlOr(l.test(row), r.test(row));
            }
            return left;
        }

        private Node and() {
            Node left = not();
            while (keyword("AND")) {
                Node l = left;
                Node r = not();
                left = row -> sqlAnd(l.test(row), r.test(row));
            }
            return left;
        }

        private Node not() {
            if (keyword("NOT")) {
                Node inner = not();
                return row -> negate(inner.test(row));
            }
            if (symbol("(")) {
                Node inner = condition();
                expect(")");
                return inner;
            }
            return test();
        }

        private Node test() {
            ConditionOperand left = operand();
            String compare = peek(ConditionTokens.Type.SYMBOL);
            if (compare != null && COMPARISONS.contains(compare)) {
                pos++;
                ConditionOperand right = comparable(left, operand(), compare);
                return row -> ConditionOperand.compare(compare, left.value(row), right.value(row));
            }
            if (keyword("IS")) {
                boolean negated = keyword("NOT");
                Node is = is(left);
                return negated ? row -> !is.test(row) : is;
            }
            boolean negated = keyword("NOT");
            if (keyword("IN")) {
                Node in = in(left);
                return negated ? row -> negate(in.test(row)) : in;
            }
            if (negated) {
                throw error("expected IN after NOT");
            }
            if (left.kind != Kind.BOOLEAN) {
                throw error(
                        left.label
                                + " is a "
                                + left.kind
                                + ": a test alone must be a BOOLEAN column or TRUE/FALSE; compare"
                                + " it, e.g. "
                                + left.label
                                + " = 'DELETE'");
            }
            return row -> (Boolean) left.value(row);
        }

        private Node is(ConditionOperand left) {
            if (keyword("NULL")) {
                return row -> left.value(row) == null;
            }
            boolean want;
            if (keyword("TRUE")) {
                want = true;
            } else if (keyword("FALSE")) {
                want = false;
            } else {
                throw error("expected NULL, TRUE or FALSE after IS");
            }
            if (left.kind != Kind.BOOLEAN) {
                throw error("IS TRUE and IS FALSE test a BOOLEAN operand");
            }
            return row -> Boolean.valueOf(want).equals(left.value(row));
        }

        private Node in(ConditionOperand left) {
            expect("(");
            List<ConditionOperand> items = new ArrayList<>();
            do {
                items.add(comparable(left, operand(), "IN"));
            } while (symbol(","));
            expect(")");
            return row -> ConditionOperand.in(left.value(row), items, row);
        }

        private ConditionOperand comparable(
                ConditionOperand left, ConditionOperand right, String what) {
            if (!left.comparableWith(right)) {
                throw error(
                        what
                                + " between "
                                + left.label
                                + " (a "
                                + left.kind
                                + ") and "
                                + right.label
                                + " (a "
                                + right.kind
                                + "); compare values of one kind");
            }
            return right;
        }

        private ConditionOperand operand() {
            if (pos >= tokens.size()) {
                throw error("ends early; expected a column or a value");
            }
            ConditionTokens.Token t = tokens.get(pos++);
            switch (t.type) {
                case STRING:
                    return ConditionOperand.literal(Kind.STRING, "'" + t.text + "'", t.text);
                case NUMBER:
                    try {
                        return ConditionOperand.literal(
                                Kind.NUMBER, t.text, new BigDecimal(t.text));
                    } catch (NumberFormatException e) {
                        pos--;
                        throw error(t.text + " is not a number");
                    }
                case QUOTED:
                    return column(t.text);
                case WORD:
                    String word = t.text.toUpperCase(Locale.ROOT);
                    if (word.equals("NULL")) {
                        return ConditionOperand.literal(Kind.NULL, word, null);
                    } else if (word.equals("TRUE") || word.equals("FALSE")) {
                        return ConditionOperand.literal(Kind.BOOLEAN, word, word.equals("TRUE"));
                    } else if (KEYWORDS.contains(word)) {
                        throw error("unexpected " + t.text + "; expected a column or a value");
                    } else if (pos < tokens.size() && tokens.get(pos).text.equals("(")) {
                        throw error(
                                "calls "
                                        + t.text
                                        + "(...): only comparisons are read here;"
                                        + " compute it as a BOOLEAN column in the input view");
                    }
                    return column(t.text);
                default:
                    pos--;
                    throw error("unexpected " + t.text + "; expected a column or a value");
            }
        }

        private ConditionOperand column(String name) {
            List<String> names = input.getFieldNames();
            int at;
            try {
                at = names.indexOf(FlowMapping.resolve(names, name, "APPLY AS DELETE WHEN"));
            } catch (FlowDefinitionException e) {
                throw AutoCdcPlan.error(function, ARGUMENT, AutoCdcCall.wording(e, names));
            }
            ConditionOperand c = ConditionOperand.column(names.get(at), at, input.getTypeAt(at));
            if (c == null) {
                throw error(
                        "names "
                                + names.get(at)
                                + ", which is "
                                + input.getTypeAt(at).asSummaryString()
                                + ": the condition reads character strings, booleans and"
                                + " numbers; compute this test as a BOOLEAN column in the input"
                                + " view");
            }
            return c;
        }

        private boolean keyword(String k) {
            String w = peek(ConditionTokens.Type.WORD);
            if (w != null && w.equalsIgnoreCase(k)) {
                pos++;
                return true;
            }
            return false;
        }

        private boolean symbol(String s) {
            if (s.equals(peek(ConditionTokens.Type.SYMBOL))) {
                pos++;
                return true;
            }
            return false;
        }

        private void expect(String s) {
            if (!symbol(s)) {
                throw error("expected " + s);
            }
        }

        private String peek(ConditionTokens.Type type) {
            if (pos < tokens.size() && tokens.get(pos).type == type) {
                return tokens.get(pos).text;
            }
            return null;
        }

        ValidationException error(String problem) {
            int at = pos < tokens.size() ? tokens.get(pos).offset : text.length();
            return AutoCdcPlan.error(
                    function, ARGUMENT, message(problem + " (at character " + (at + 1) + ")"));
        }

        private String message(String problem) {
            return "'"
                    + text
                    + "': "
                    + problem
                    + ". Write a condition on the input's columns, e.g. apply_as_deletes =>"
                    + " 'operation = ''DELETE'''";
        }
    }

    private static Boolean negate(Boolean b) {
        return b == null ? null : !b;
    }

    private static Boolean sqlAnd(Boolean a, Boolean b) {
        if (Boolean.FALSE.equals(a) || Boolean.FALSE.equals(b)) {
            return false;
        }
        return a == null || b == null ? null : true;
    }

    private static Boolean sqlOr(Boolean a, Boolean b) {
        if (Boolean.TRUE.equals(a) || Boolean.TRUE.equals(b)) {
            return true;
        }
        return a == null || b == null ? null : false;
    }
}
