package dev.autocdc.job.source;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@link DuplicateFields}: a field written twice in one object, at any depth, and nothing else. */
class DuplicateFieldsTest {
    private final DuplicateFields fields = new DuplicateFields();

    private String duplicate(String json) {
        return fields.duplicate(json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void findsAFieldWrittenTwiceInOneObject() {
        assertThat(duplicate("{\"id\": 26, \"id\": 27}")).isEqualTo("id");
        assertThat(duplicate("{\"a\": 1, \"seq\": 1, \"b\": {\"x\": 1}, \"seq\": 2}"))
                .isEqualTo("seq");
        assertThat(duplicate("{\"after\": {\"id\": 1, \"v\": \"a\", \"id\": 2}}")).isEqualTo("id");
        assertThat(duplicate("[{\"a\": 1}, {\"b\": [1, {\"c\": 1, \"c\": 2}]}]")).isEqualTo("c");
        assertThat(duplicate("{\"na\\\"me\": 1, \"na\\\"me\": 2}")).isEqualTo("na\\\"me");
    }

    @Test
    void theSameNameInOtherObjectsOrAsAValueIsNoDuplicate() {
        assertThat(duplicate("{\"id\": 1, \"before\": {\"id\": 1}, \"after\": {\"id\": 2}}"))
                .isNull();
        assertThat(duplicate("{\"a\": \"a\", \"b\": [\"a\", \"a\"], \"c\": {\"a\": \"b\"}}"))
                .isNull();
        assertThat(duplicate("[{\"id\": 1}, {\"id\": 2}]")).isNull();
        assertThat(duplicate("{\"ab\": 1, \"a\": 2, \"a,b\": 3}")).isNull();
        assertThat(duplicate("{\"a\": \"}{\\\"a\\\": 1\", \"b\": 1}")).isNull();
    }

    @Test
    void recordsItCannotFollowAreLeftToTheFormat() {
        assertThat(duplicate("{not json")).isNull();
        assertThat(duplicate("{\"a\": \"unterminated")).isNull();
        assertThat(duplicate("}}")).isNull();
        assertThat(duplicate("")).isNull();
    }
}
