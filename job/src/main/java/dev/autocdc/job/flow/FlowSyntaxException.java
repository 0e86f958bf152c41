package dev.autocdc.job.flow;

/**
 * A flow script that cannot be read: says where (line; 0 for a setting given outside the script,
 * such as {@code -D} on the command line), which clause, and what to do.
 */
public final class FlowSyntaxException extends IllegalArgumentException {
    private final int line;
    private final String clause;

    public FlowSyntaxException(int line, String clause, String message) {
        super((line > 0 ? "line " + line + ", " : "") + clause + ": " + message);
        this.line = line;
        this.clause = clause;
    }

    public int line() {
        return line;
    }

    public String clause() {
        return clause;
    }
}
