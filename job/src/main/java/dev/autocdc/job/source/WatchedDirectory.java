package dev.autocdc.job.source;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * A watched directory (a filesystem table with {@code source.monitor-interval}) that carries the
 * snapshots' watermark ({@link SnapshotWatermark}) is read by one subtask; what follows the reading
 * (the decoding step, the flow) runs at the job's parallelism.
 *
 * <p>Flink's filesystem source has no per-split watermark: the watermark is declared after it, one
 * per reading subtask, and the next step forwards the least of them. The enumerator hands each file
 * (each block of a large file) to one subtask that asks for work; the others hold no split and
 * never move their watermark, so at any parallelism above 1 they held every snapshot back, a whole
 * night's export with its end row included, until a later file reached each of them.
 *
 * <p>Marking those subtasks idle would not be exact. A subtask without a split cannot tell whether
 * the enumerator has nothing for it or is about to hand it a split: the next block of a file whose
 * last block, with the end row, another subtask has just read, or a second file of the same night
 * found in the same scan. Declared idle meanwhile, it would let the others complete the snapshot
 * before that split was read, and a half-delivered snapshot deletes keys; an idle timeout has the
 * same flaw, which is why flows from snapshots refuse one ({@code SnapshotSources}). One reading
 * subtask reads the splits one after another in the order the enumerator hands them out, so its
 * watermark passes a snapshot only once every split it has been given has passed it: the contract
 * docs/snapshots.md states for a watched directory.
 */
final class WatchedDirectory {
    private WatchedDirectory() {}

    /** Whether a table with these options is a watched directory. */
    static boolean watched(Map<String, String> options) {
        return "filesystem".equals(options.get("connector"))
                && SnapshotWatermark.unbounded(options);
    }

    /**
     * Sets parallelism 1 on every step the table's reading was translated to: the source, the
     * computed columns, the watermark, the conversion to a stream. Call it on the stream {@code
     * toDataStream} returned for that table, before any step of the flow reads it.
     */
    static void readByOneSubtask(DataStream<?> read) {
        Deque<Transformation<?>> open = new ArrayDeque<>();
        Set<Integer> seen = new HashSet<>();
        open.push(read.getTransformation());
        while (!open.isEmpty()) {
            Transformation<?> step = open.pop();
            if (seen.add(step.getId())) {
                step.setParallelism(1);
                step.getInputs().forEach(open::push);
            }
        }
    }
}
