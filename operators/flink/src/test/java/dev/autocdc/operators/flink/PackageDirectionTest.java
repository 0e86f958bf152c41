package dev.autocdc.operators.flink;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The keyed operators' packages depend one way, as docs/architecture.md draws them: {@code spec}
 * and {@code state} at the bottom, each on neither; {@code targets} on those two; {@code runtime}
 * on the targets; {@code snapshot} on the runtime; the hosts, in the root package, on all of them.
 * Checked on the compiled main classes (ArchUnit), so a fully qualified name counts as much as an
 * import.
 */
class PackageDirectionTest {
    @Test
    void noPackageDependsOnAPackageAboveIt() {
        JavaClasses classes =
                new ClassFileImporter()
                        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                        .importPackages("dev.autocdc.operators.flink");
        layeredArchitecture()
                .consideringOnlyDependenciesInLayers()
                .layer("hosts")
                .definedBy("dev.autocdc.operators.flink")
                .layer("snapshot")
                .definedBy("dev.autocdc.operators.flink.snapshot..")
                .layer("runtime")
                .definedBy("dev.autocdc.operators.flink.runtime..")
                .layer("targets")
                .definedBy("dev.autocdc.operators.flink.targets..")
                .layer("spec")
                .definedBy("dev.autocdc.operators.flink.spec..")
                .layer("state")
                .definedBy("dev.autocdc.operators.flink.state..")
                .whereLayer("hosts")
                .mayNotBeAccessedByAnyLayer()
                .whereLayer("snapshot")
                .mayOnlyBeAccessedByLayers("hosts")
                .whereLayer("runtime")
                .mayOnlyBeAccessedByLayers("snapshot", "hosts")
                .whereLayer("targets")
                .mayOnlyBeAccessedByLayers("runtime", "snapshot", "hosts")
                .whereLayer("spec")
                .mayOnlyBeAccessedByLayers("targets", "runtime", "snapshot", "hosts")
                .whereLayer("state")
                .mayOnlyBeAccessedByLayers("targets", "runtime", "snapshot", "hosts")
                .check(classes);
    }
}
