package dev.autocdc.operators.flink.state;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;

/**
 * The heap a flow operator's write-back caches ({@link WriteBackCache}) may fill together, in
 * bytes, and what they fill now: each cache counts its keys at its estimated bytes per key ({@link
 * WriteBackCache#bytes()}), and a cache takes a key in only while the sum stays within the budget.
 *
 * <p>The budget of one subtask, when the flow does not set it ({@link #ofTask}): a quarter ({@link
 * #TASK_HEAP_SHARE}) of the task heap of the slot it runs in, {@code
 * taskmanager.memory.task.heap.size} divided by {@code taskmanager.numberOfTaskSlots}, divided
 * among the job's flows ({@code shares}), whose operators may share the slot. Without a configured
 * task heap (a local run, where Flink leaves it unbounded) half the JVM's maximum heap stands for
 * it.
 */
public final class CacheBudget {
    /** The share of a slot's task heap the write-back caches of a job take. */
    public static final double TASK_HEAP_SHARE = 0.25;

    /** The least budget, so that a small heap still caches a few keys. */
    public static final long MIN_BYTES = 64 * 1024;

    private final long max;

    /** Read by the metric reporter's thread too ({@link #used()}), hence copied on write. */
    private final List<WriteBackCache<?>> caches = new CopyOnWriteArrayList<>();

    /**
     * @param max the bytes the caches may hold; {@link Long#MAX_VALUE}: no bound
     */
    public CacheBudget(long max) {
        this.max = max;
    }

    /** A budget with no bound (the caches bounded by their keys alone). */
    public static CacheBudget unbounded() {
        return new CacheBudget(Long.MAX_VALUE);
    }

    /**
     * The budget of one subtask on a TaskManager of configuration {@code taskManager}, shared by
     * the caches of {@code shares} flows: see the class comment.
     */
    public static long ofTask(Configuration taskManager, int shares) {
        MemorySize heap = taskManager.get(TaskManagerOptions.TASK_HEAP_MEMORY);
        long jvm = Runtime.getRuntime().maxMemory();
        long taskHeap = heap == null || heap.getBytes() >= jvm ? jvm / 2 : heap.getBytes();
        int slots = Math.max(1, taskManager.get(TaskManagerOptions.NUM_TASK_SLOTS));
        return Math.max(
                MIN_BYTES, (long) (taskHeap * TASK_HEAP_SHARE / slots / Math.max(1, shares)));
    }

    /** The bytes the caches may hold. */
    public long max() {
        return max;
    }

    /** The bytes the caches hold now, as estimated. */
    public long used() {
        long used = 0;
        for (WriteBackCache<?> c : caches) {
            used += c.bytes();
        }
        return used;
    }

    /** Whether {@code more} bytes fit beside what the caches hold. */
    boolean fits(long more) {
        return max == Long.MAX_VALUE || used() + more <= max;
    }

    void register(WriteBackCache<?> cache) {
        caches.add(cache);
    }
}
