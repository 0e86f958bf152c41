package dev.autocdc.benchmarks;

/**
 * When a {@link BenchmarkJob} run's events passed (System.nanoTime): set by {@link Generate} and
 * {@link LastOutput} in the job's one JVM, read by its main for the rates; 0 until then.
 */
final class Progress {
    static volatile long start;
    static volatile long fifth;
    static volatile long fourFifths;
    static volatile long end;
    static volatile long lastOutput;
}
