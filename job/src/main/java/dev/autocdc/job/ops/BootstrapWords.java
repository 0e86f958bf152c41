package dev.autocdc.job.ops;

/**
 * How a bootstrap's messages name what the user gave: the CLI's options ({@link #CLI}) or the
 * arguments of {@code CALL autocdc.sys.bootstrap_flow} ({@link #PROCEDURE}).
 *
 * @param from the stored histories, {@code [FLOW=]TABLE}
 * @param asOf an SCD type 1 table's sequence
 * @param savepoint where the savepoint goes
 */
public record BootstrapWords(String from, String asOf, String savepoint) {
    public static final BootstrapWords CLI = new BootstrapWords("--from", "--as-of", "--savepoint");

    public static final BootstrapWords PROCEDURE =
            new BootstrapWords("argument from", "argument as_of", "argument savepoint");
}
