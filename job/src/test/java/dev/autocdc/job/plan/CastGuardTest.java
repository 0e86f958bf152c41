package dev.autocdc.job.plan;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The CAST rewrite, on text typed by hand. */
class CastGuardTest {
    @Test
    void aCastBecomesTryCastWithAFailureFlag() {
        CastGuard.Guarded g = CastGuard.guard("CAST(op AS INT) = 1");
        assertThat(g.condition()).isEqualTo("TRY_CAST(op AS INT) = 1");
        assertThat(g.anyFailed()).isEqualTo("(((op) IS NOT NULL AND TRY_CAST(op AS INT) IS NULL))");
    }

    @Test
    void nestedCastsAreEachGuarded() {
        CastGuard.Guarded g =
                CastGuard.guard("cast ( CAST(a AS STRING) || 'x' as DECIMAL(5, 2)) > 0");
        assertThat(g.condition())
                .isEqualTo("TRY_CAST(TRY_CAST(a AS STRING) || 'x' AS DECIMAL(5, 2)) > 0");
        assertThat(g.failed())
                .containsExactly(
                        "((a) IS NOT NULL AND TRY_CAST(a AS STRING) IS NULL)",
                        "((TRY_CAST(a AS STRING) || 'x') IS NOT NULL AND TRY_CAST(TRY_CAST(a AS"
                                + " STRING) || 'x' AS DECIMAL(5, 2)) IS NULL)");
    }

    @Test
    void literalsQuotedNamesAndTryCastAreLeftAlone() {
        String text =
                "op = 'CAST(x AS INT)' AND `CAST`(1) = 1 AND TRY_CAST(y AS INT) = 2 AND"
                        + " \"cast\" = 'it''s CAST(z AS INT)' AND broadcast = 1";
        CastGuard.Guarded g = CastGuard.guard(text);
        assertThat(g.condition()).isEqualTo(text);
        assertThat(g.anyFailed()).isNull();
    }

    @Test
    void aCastItCannotReadIsLeftForFlinkToReport() {
        assertThat(CastGuard.guard("CAST(op) = 1").condition()).isEqualTo("CAST(op) = 1");
        assertThat(CastGuard.guard("CAST(op AS INT").condition()).isEqualTo("CAST(op AS INT");
    }
}
