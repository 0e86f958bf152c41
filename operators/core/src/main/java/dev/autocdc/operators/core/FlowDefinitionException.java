package dev.autocdc.operators.core;

/**
 * A flow definition that cannot run. It carries the clause at fault and what is wrong with it and
 * what to do, as separate fields, so that each front end words its own error (a line of a flow
 * file, an argument of a SQL function call) without parsing the message; the message is {@code
 * clause: detail}.
 */
public final class FlowDefinitionException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String clause;
    private final String detail;

    public FlowDefinitionException(String clause, String detail) {
        super(clause + ": " + detail);
        this.clause = clause;
        this.detail = detail;
    }

    /** The clause at fault, spelled as in the SQL form (e.g. {@code TRACK HISTORY}). */
    public String clause() {
        return clause;
    }

    /** What is wrong and what to do, without the clause. */
    public String detail() {
        return detail;
    }
}
