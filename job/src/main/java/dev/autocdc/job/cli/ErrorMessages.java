package dev.autocdc.job.cli;

/** A failure's message for the console: its own, and its root cause's when that is another. */
final class ErrorMessages {
    private ErrorMessages() {}

    /** {@code message (cause: root message)}, with a hint for a JVM out of heap. */
    static String root(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        String hint =
                t instanceof OutOfMemoryError
                        ? "; give the JVM more heap: AUTOCDC_JAVA_OPTS=-Xmx4g deploy/autocdc ..."
                        : "";
        return (t == e
                        ? String.valueOf(e.getMessage())
                        : e.getMessage() + " (cause: " + t.getMessage() + ")")
                + hint;
    }
}
