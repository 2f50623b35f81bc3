package dev.kiln.springai;

import dev.kiln.client.KilnFilter;
import dev.kiln.client.RangeOp;
import dev.kiln.client.UnsupportedFilterException;
import java.util.Collection;
import org.springframework.ai.vectorstore.filter.Filter;
import org.springframework.ai.vectorstore.filter.FilterExpressionTextParser;

/**
 * Spring AI's portable filter expressions ({@code Filter.Expression}, or their text form {@code lang ==
 * 'en' && year >= 2020}) as Kiln filters. Supported: {@code ==}, {@code IN}, {@code >}, {@code >=}, {@code <},
 * {@code <=} (ranges on keys the snapshot indexed for ranges), {@code &&}, and {@code ||} of values of one
 * key. Refused with {@link UnsupportedFilterException}: {@code !=}, {@code NIN}, {@code NOT}, {@code IS
 * NULL}, {@code IS NOT NULL}, and {@code ||} across keys, which Kiln's index cannot evaluate.
 */
public final class SpringAiFilters {
  private SpringAiFilters() {}

  /** The Kiln filter for a text expression; null or blank is no filter. */
  public static KilnFilter toKiln(String expression) {
    if (expression == null || expression.isBlank()) {
      return KilnFilter.none();
    }
    return toKiln(new FilterExpressionTextParser().parse(expression));
  }

  /** The Kiln filter for {@code expression}; null is no filter. */
  public static KilnFilter toKiln(Filter.Expression expression) {
    if (expression == null) {
      return KilnFilter.none();
    }
    return switch (expression.type()) {
      case AND -> operand(expression.left()).and(operand(expression.right()));
      case OR -> operand(expression.left()).or(operand(expression.right()));
      case EQ -> KilnFilter.eq(key(expression), value(expression));
      case IN -> KilnFilter.in(key(expression), values(expression));
      case GT -> KilnFilter.range(key(expression), RangeOp.GT, value(expression));
      case GTE -> KilnFilter.range(key(expression), RangeOp.GTE, value(expression));
      case LT -> KilnFilter.range(key(expression), RangeOp.LT, value(expression));
      case LTE -> KilnFilter.range(key(expression), RangeOp.LTE, value(expression));
      case NE, NIN, NOT, ISNULL, ISNOTNULL -> throw new UnsupportedFilterException("Kiln cannot evaluate the"
          + " Spring AI filter " + expression + " (" + expression.type() + "): it supports ==, IN, >, >=, <, <=,"
          + " AND, and OR of values of one key");
    };
  }

  private static KilnFilter operand(Filter.Operand operand) {
    return switch (operand) {
      case Filter.Expression e -> toKiln(e);
      case Filter.Group g -> toKiln(g.content());
      default -> throw new UnsupportedFilterException("a logical operator needs expressions on both sides, got "
          + operand);
    };
  }

  /** The key; the text parser keeps the quotes of a quoted key ({@code 'lang' == 'en'}), Kiln's keys have none. */
  private static String key(Filter.Expression e) {
    if (!(e.left() instanceof Filter.Key k)) {
      throw new UnsupportedFilterException("filter " + e + ": the left side of " + e.type() + " must be a key");
    }
    String key = k.key();
    if (key.length() >= 2 && (key.charAt(0) == '\'' || key.charAt(0) == '"') && key.endsWith(key.substring(0, 1))) {
      key = key.substring(1, key.length() - 1);
    }
    return key;
  }

  private static Object value(Filter.Expression e) {
    if (!(e.right() instanceof Filter.Value v)) {
      throw new UnsupportedFilterException("filter " + e + ": the right side of " + e.type() + " must be a value");
    }
    return v.value();
  }

  private static Collection<?> values(Filter.Expression e) {
    Object v = value(e);
    if (!(v instanceof Collection<?> c)) {
      throw new UnsupportedFilterException("filter " + e + ": IN needs a list of values");
    }
    return c;
  }
}
