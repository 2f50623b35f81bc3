package dev.kiln.springai;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.client.KilnFilter;
import dev.kiln.client.UnsupportedFilterException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.ai.vectorstore.filter.FilterExpressionBuilder;

class SpringAiFiltersTest {
  private final FilterExpressionBuilder b = new FilterExpressionBuilder();

  @Test
  void textExpressionsBecomeKilnExpressions() {
    assertEquals(List.of("lang=en", "topic=geology", "topic=sport", "year>=2020", "year<2024"),
        SpringAiFilters.toKiln("lang == 'en' && year >= 2020 && year < 2024 && topic IN ['geology', 'sport']")
            .expressions());
    assertEquals(List.of("lang=en", "lang=de"), SpringAiFilters.toKiln("lang == 'en' || lang == 'de'").expressions());
    assertEquals(List.of("lang=en", "year>2019", "year<=2021"),
        SpringAiFilters.toKiln("'lang' == 'en' && (year > 2019 && year <= 2021)").expressions());
    assertEquals(KilnFilter.none(), SpringAiFilters.toKiln(" "));
  }

  @Test
  void builtExpressionsBecomeKilnExpressions() {
    assertEquals(List.of("lang=en", "year>=2020"),
        SpringAiFilters.toKiln(b.and(b.eq("lang", "en"), b.gte("year", 2020)).build()).expressions());
    assertEquals(List.of("topic=geology", "topic=sport"),
        SpringAiFilters.toKiln(b.in("topic", "geology", "sport").build()).expressions());
  }

  @Test
  void operatorsKilnCannotEvaluateAreRefusedByName() {
    for (String refused : List.of("lang != 'en'", "lang NOT IN ['en']", "NOT (lang == 'en')",
        "lang == 'en' || topic == 'geology'", "lang IS NULL", "lang IS NOT NULL")) {
      UnsupportedFilterException e = assertThrows(UnsupportedFilterException.class,
          () -> SpringAiFilters.toKiln(refused), refused);
      assertTrue(e.getMessage().startsWith("Kiln cannot evaluate"), refused + ": " + e.getMessage());
    }
  }
}
