package dev.autocdc.operators.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class KeyPresenceTest {
    private static final SequenceCodec INTS = new SequenceCodec(ColumnType.of(ColumnType.Kind.INT));

    private static byte[] v(int version) {
        return INTS.encode(version);
    }

    @Test
    void aKeyThatAppearsAndVanishesIsTwoPoints() {
        KeyPresence p = KeyPresence.absent();
        p.set(v(3), null, true); // in the snapshot of version 3 and every later one
        p.set(v(7), null, false); // gone from version 7
        assertThat(p.points()).containsExactly(v(3), v(7));
        assertThat(p.at(v(2))).isFalse();
        assertThat(p.at(v(3))).isTrue();
        assertThat(p.at(v(6))).isTrue();
        assertThat(p.at(v(7))).isFalse();
        assertThat(p.atEnd()).isFalse();
        // an older version restated with the key: present from 1 until 3, then as before
        p.set(v(1), v(3), true);
        assertThat(p.points()).containsExactly(v(1), v(7));
        // a restated version 5 without it: absent from 5 until the next version, 6
        p.set(v(5), v(6), false);
        assertThat(p.points()).containsExactly(v(1), v(5), v(6), v(7));
        assertThat(p.toString()).isEqualTo("KeyPresence[+80000001 -80000005 +80000006 -80000007]");
    }

    @Test
    void pointsRoundTripAndMustAscend() {
        KeyPresence p = KeyPresence.of(List.of(v(1), v(4), v(9)));
        assertThat(p.atEnd()).isTrue();
        assertThat(KeyPresence.of(p.points()).points()).containsExactly(v(1), v(4), v(9));
        assertThatThrownBy(() -> KeyPresence.of(List.of(v(4), v(4))))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> p.set(v(4), v(4), true))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** Random ranges against a plain array of booleans over versions 0-19. */
    @Test
    void setEqualsAnArrayOfBooleans() {
        Random random = new Random(2612);
        for (int round = 0; round < 2_000; round++) {
            KeyPresence p = KeyPresence.absent();
            boolean[] model = new boolean[20];
            for (int step = 0; step < 8; step++) {
                int from = random.nextInt(20);
                int until = random.nextInt(3) == 0 ? 20 : from + 1 + random.nextInt(20 - from);
                boolean present = random.nextBoolean();
                p.set(v(from), until == 20 ? null : v(until), present);
                for (int i = from; i < until; i++) {
                    model[i] = present;
                }
                for (int i = 0; i < 20; i++) {
                    assertThat(p.at(v(i)))
                            .as("round %d step %d version %d", round, step, i)
                            .isEqualTo(model[i]);
                }
                assertThat(p.atEnd()).isEqualTo(model[19]);
                int changes = 0;
                boolean previous = false;
                for (boolean b : model) {
                    changes += b != previous ? 1 : 0;
                    previous = b;
                }
                assertThat(p.points()).as("only change points are kept").hasSize(changes);
            }
        }
    }
}
