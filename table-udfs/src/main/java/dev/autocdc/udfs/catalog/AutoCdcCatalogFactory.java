package dev.autocdc.udfs.catalog;

import java.util.Set;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.table.catalog.Catalog;
import org.apache.flink.table.factories.CatalogFactory;

/**
 * {@code CREATE CATALOG autocdc WITH ('type' = 'autocdc')}: the catalog whose procedures run and
 * validate flows from the SQL client ({@link AutoCdcCatalog}). It takes no option.
 */
public final class AutoCdcCatalogFactory implements CatalogFactory {
    public static final String IDENTIFIER = "autocdc";

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of();
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of();
    }

    @Override
    public Catalog createCatalog(Context context) {
        return new AutoCdcCatalog(context.getName());
    }
}
