package dev.autocdc.operators.flink.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The frequency sketch's contract: never under the true count, saturating, halved with age. */
class FrequencySketchTest {

    @Test
    void anEstimateIsNeverBelowTheCountAndRarelyAbove() {
        FrequencySketch sketch = new FrequencySketch(1_000);
        Map<Integer, Integer> counts = new HashMap<>();
        Random random = new Random(17);
        for (int i = 0; i < 1_000; i++) { // under 10 * width (1,024): no halving
            int key = random.nextInt(100); // about 10 each, 400 of the 1,024 counters

            sketch.increment(key);
            counts.merge(key, 1, Integer::sum);
        }
        int above = 0;
        for (Map.Entry<Integer, Integer> e : counts.entrySet()) {
            int estimate = sketch.estimate(e.getKey());
            assertThat(estimate)
                    .as("key " + e.getKey())
                    .isEqualTo(Math.min(15, Math.max(estimate, e.getValue())));
            if (estimate > Math.min(15, e.getValue())) {
                above++;
            }
        }
        assertThat(above)
                .as("keys over-counted of " + counts.size())
                .isLessThan(counts.size() / 10);
        assertThat(sketch.estimate(-1)).as("a key never counted").isLessThanOrEqualTo(1);
    }

    @Test
    void countersStopAtFifteenAndHalveAfterTenIncrementsPerCounter() {
        FrequencySketch sketch = new FrequencySketch(64); // width 64: halves after 640 increments
        for (int i = 0; i < 20; i++) {
            sketch.increment("hot");
        }
        assertThat(sketch.estimate("hot")).isEqualTo(15);
        for (int i = 0; i < 619; i++) { // other keys, until one increment short of 640
            sketch.increment(i);
        }
        assertThat(sketch.estimate("hot")).isEqualTo(15);
        sketch.increment("cold"); // the 640th: every counter halved, with the table saturated
        assertThat(sketch.estimate("hot")).isEqualTo(7);
    }

    @Test
    void aHalvingRoundsDownAndTheNextComesAfterFiveIncrementsPerCounter() {
        FrequencySketch sketch = new FrequencySketch(64); // halves after 640, then every 320
        for (int i = 0; i < 5; i++) {
            sketch.increment("k");
        }
        for (int i = 0; i < 634; i++) { // one other key: its counters are not k's
            sketch.increment("x");
        }
        assertThat(sketch.estimate("k")).isEqualTo(5);
        sketch.increment("x"); // the 640th
        assertThat(sketch.estimate("k")).isEqualTo(2);
        assertThat(sketch.estimate("x")).isEqualTo(7);
        for (int i = 0; i < 319; i++) {
            sketch.increment("x");
        }
        assertThat(sketch.estimate("k")).isEqualTo(2);
        sketch.increment("x"); // 320 after the first halving
        assertThat(sketch.estimate("k")).isEqualTo(1);
        assertThat(sketch.estimate("x")).isEqualTo(7);
    }
}
