package dev.kiln.langchain4j;

import dev.kiln.client.KilnFilter;
import dev.kiln.client.RangeOp;
import dev.kiln.client.UnsupportedFilterException;
import dev.langchain4j.store.embedding.filter.Filter;
import dev.langchain4j.store.embedding.filter.comparison.IsEqualTo;
import dev.langchain4j.store.embedding.filter.comparison.IsGreaterThan;
import dev.langchain4j.store.embedding.filter.comparison.IsGreaterThanOrEqualTo;
import dev.langchain4j.store.embedding.filter.comparison.IsIn;
import dev.langchain4j.store.embedding.filter.comparison.IsLessThan;
import dev.langchain4j.store.embedding.filter.comparison.IsLessThanOrEqualTo;
import dev.langchain4j.store.embedding.filter.logical.And;
import dev.langchain4j.store.embedding.filter.logical.Or;

/**
 * LangChain4j's metadata filters ({@code metadataKey("lang").isEqualTo("en")}) as Kiln filters.
 * Supported: {@code isEqualTo}, {@code isIn}, {@code isGreaterThan(OrEqualTo)}, {@code isLessThan(OrEqualTo)}
 * (ranges on keys the snapshot indexed for ranges), {@code and}, and {@code or} of values of one key.
 * Refused with {@link UnsupportedFilterException}: {@code not}, {@code isNotEqualTo}, {@code isNotIn},
 * {@code containsString}, and {@code or} across keys, which Kiln's index cannot evaluate.
 */
public final class LangChain4jFilters {
  private LangChain4jFilters() {}

  /** The Kiln filter for {@code filter}; {@code null} is no filter. */
  public static KilnFilter toKiln(Filter filter) {
    return switch (filter) {
      case null -> KilnFilter.none();
      case IsEqualTo f -> KilnFilter.eq(f.key(), f.comparisonValue());
      case IsIn f -> KilnFilter.in(f.key(), f.comparisonValues());
      case IsGreaterThan f -> KilnFilter.range(f.key(), RangeOp.GT, f.comparisonValue());
      case IsGreaterThanOrEqualTo f -> KilnFilter.range(f.key(), RangeOp.GTE, f.comparisonValue());
      case IsLessThan f -> KilnFilter.range(f.key(), RangeOp.LT, f.comparisonValue());
      case IsLessThanOrEqualTo f -> KilnFilter.range(f.key(), RangeOp.LTE, f.comparisonValue());
      case And f -> toKiln(f.left()).and(toKiln(f.right()));
      case Or f -> toKiln(f.left()).or(toKiln(f.right()));
      default -> throw new UnsupportedFilterException("Kiln cannot evaluate the LangChain4j filter " + filter + " ("
          + filter.getClass().getSimpleName() + "): it supports isEqualTo, isIn, isGreaterThan(OrEqualTo),"
          + " isLessThan(OrEqualTo), and, and or of values of one key");
    };
  }
}
