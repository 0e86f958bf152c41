package dev.autocdc.job.cli;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.UnaryOperator;

/**
 * The command line's output, passed through a redactor before it is written: once a flow file's
 * {@code ${env:NAME}} values are known, no message shows them (the values of Secrets). A {@code
 * PrintStream} subclass sends {@code println(String)} and {@code println(Object)} through {@link
 * #print(String)}, so that is the one method to override.
 */
final class RedactingPrintStream extends PrintStream {
    private volatile UnaryOperator<String> redactor = UnaryOperator.identity();

    RedactingPrintStream(PrintStream out) {
        super(out, true, StandardCharsets.UTF_8);
    }

    void redactWith(UnaryOperator<String> redactor) {
        this.redactor = redactor;
    }

    @Override
    public void print(String s) {
        super.print(redactor.apply(s));
    }
}
