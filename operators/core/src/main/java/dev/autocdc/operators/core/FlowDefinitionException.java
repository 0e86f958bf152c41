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
    private final String problem;
    private final String subject;

    public FlowDefinitionException(String clause, String detail) {
        this(clause, detail, null, null);
    }

    /**
     * @param problem a code for the kind of mistake, for a front end that words it its own way;
     *     null when the detail is the only wording
     * @param subject the name the mistake is about (a column), or null
     */
    public FlowDefinitionException(String clause, String detail, String problem, String subject) {
        super(clause + ": " + detail);
        this.clause = clause;
        this.detail = detail;
        this.problem = problem;
        this.subject = subject;
    }

    /** The clause at fault, spelled as in the SQL form (e.g. {@code TRACK HISTORY}). */
    public String clause() {
        return clause;
    }

    /** What is wrong and what to do, without the clause. */
    public String detail() {
        return detail;
    }

    /** The kind of mistake as a code (see its thrower), or null. */
    public String problem() {
        return problem;
    }

    /** The name the mistake is about, or null. */
    public String subject() {
        return subject;
    }
}
