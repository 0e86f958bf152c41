package dev.autocdc.benchmarks;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * When a {@link BenchmarkJob} run's events passed (System.nanoTime), and what the job's downstream
 * task threads had allocated then: set by {@link Generate} and {@link LastOutput} in the job's one
 * JVM, read by its main for the rates; 0 until then.
 */
final class Progress {
    static volatile long start;
    static volatile long fifth;
    static volatile long fourFifths;
    static volatile long end;
    static volatile long lastOutput;

    /** {@link #operatorAllocatedBytes} when the source passed a fifth of the events. */
    static volatile long allocatedAtFifth;

    /** {@link #operatorAllocatedBytes} when the source passed its last event. */
    static volatile long allocatedAtEnd;

    /** {@link #operatorCpuNanos} when the source passed a fifth of the events. */
    static volatile long cpuAtFifth;

    /** {@link #operatorCpuNanos} when the source passed its last event. */
    static volatile long cpuAtEnd;

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private Progress() {}

    /**
     * The bytes allocated so far by the job's task threads other than the source's: at parallelism
     * 1, the thread that runs the keyed operator and whatever is chained to it (the sink, and the
     * copies between chained operators). Flink names a task's thread {@code <chain>
     * (<subtask>/<parallelism>)#<attempt>} and its helpers {@code OutputFlusher for <chain>} and
     * {@code [System ]Time Trigger for <chain>}, which are left out; a thread that ended (nothing
     * in these runs) would be missed.
     */
    static long operatorAllocatedBytes() {
        long sum = 0;
        for (long id : operatorThreads()) {
            sum += THREADS.getThreadAllocatedBytes(id);
        }
        return sum;
    }

    /**
     * The CPU time so far of the threads {@link #operatorAllocatedBytes} sums, in nanoseconds: the
     * time they ran, not the time they waited for a core, so it moves far less than a rate on a
     * shared machine. RocksDB's own threads (flushes, compactions) are not in it.
     */
    static long operatorCpuNanos() {
        long sum = 0;
        for (long id : operatorThreads()) {
            sum += Math.max(0, THREADS.getThreadCpuTime(id));
        }
        return sum;
    }

    private static List<Long> operatorThreads() {
        long self = Thread.currentThread().getId();
        List<Long> ids = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            String name = t.getName();
            if (t.getId() != self
                    && name.matches(".* \\(1/1\\)#\\d+$")
                    && !name.startsWith("Source:")
                    && !name.matches("^(OutputFlusher|Time Trigger|System Time Trigger) for .*")) {
                ids.add(t.getId());
            }
        }
        return ids;
    }
}
