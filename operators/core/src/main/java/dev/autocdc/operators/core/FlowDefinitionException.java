package dev.autocdc.operators.core;

/** A flow definition that cannot run; the message names the clause and what to do. */
public final class FlowDefinitionException extends IllegalArgumentException {
    private final String clause;

    public FlowDefinitionException(String clause, String message) {
        super(clause + ": " + message);
        this.clause = clause;
    }

    /** The clause at fault, spelled as in the SQL form (e.g. {@code TRACK HISTORY}). */
    public String clause() {
        return clause;
    }
}
