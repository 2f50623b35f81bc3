package dev.kiln.search.rewrite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.ConfigException;
import dev.kiln.search.Setting;
import dev.kiln.search.SettingException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LexicalFeedbackTest {
  /** Whitespace analysis, enough to see which texts fed the expansion. */
  private static Map<String, Integer> words(String text) {
    Map<String, Integer> counts = new LinkedHashMap<>();
    for (String w : text.toLowerCase(Locale.ROOT).split("\\s+")) {
      if (!w.isEmpty()) {
        counts.merge(w, 1, Integer::sum);
      }
    }
    return counts;
  }

  @Test
  void expandsFromTheFirstDocsTextsOnlyAndKeepsTheOriginalWeight() {
    LexicalFeedback one = new LexicalFeedback(1, 10, 0.7);
    Map<String, Float> terms = one.expand("lava flow",
        List.of("lava flow basalt basalt", "sourdough bread oven"), LexicalFeedbackTest::words, t -> 0).bm25Terms();
    assertTrue(terms.containsKey("basalt"), terms.toString());
    assertFalse(terms.containsKey("sourdough"), "only the first text may feed a 1-doc expansion: " + terms);
    double original = terms.get("lava") + terms.get("flow");
    double total = terms.values().stream().mapToDouble(Float::doubleValue).sum();
    assertEquals(1.0, total, 1e-5);
    // lava and flow also occur in the feedback text, so they hold at least the original 0.7.
    assertTrue(original >= 0.7 - 1e-6, terms.toString());
    assertEquals(0.3 * 0.5, terms.get("basalt"), 1e-5);
  }

  @Test
  void switchesOffAndNamesTheOptionOnNonsense() {
    assertTrue(LexicalFeedback.DEFAULT.enabled());
    assertFalse(LexicalFeedback.OFF.enabled());
    assertFalse(new LexicalFeedback(10, 10, 1.0).enabled());
    assertEquals("off", LexicalFeedback.OFF.describe());
    SettingException docs = assertThrows(SettingException.class, () -> new LexicalFeedback(-1, 10, 0.7));
    assertEquals("lexical-feedback.docs must be >= 0, was -1", docs.getMessage());
    assertEquals(Setting.LEXICAL_FEEDBACK_DOCS, docs.setting());
    SettingException w = assertThrows(SettingException.class, () -> new LexicalFeedback(10, 10, 1.5));
    assertEquals(Setting.LEXICAL_FEEDBACK_ORIGINAL_WEIGHT, w.setting());
    assertTrue(w.getMessage().startsWith("lexical-feedback.original-weight must be in [0, 1]"), w.getMessage());
    assertThrows(ConfigException.class, () -> new LexicalFeedback(10, 0, 0.7));
    for (double ratio : new double[] {0, -0.1, 1.5, Double.NaN}) {
      SettingException df = assertThrows(SettingException.class, () -> new LexicalFeedback(10, 10, 0.7, ratio));
      assertEquals(Setting.LEXICAL_FEEDBACK_MAX_DOC_RATIO, df.setting());
      assertTrue(df.getMessage().startsWith("lexical-feedback.max-doc-ratio must be in (0, 1]"), df.getMessage());
    }
  }

  @Test
  void leavesOutExpansionTermsInMoreThanTheRatioOfChunks() {
    // basalt is in half the chunks: above the default 0.2 it is left out; at 1 it stays.
    List<String> texts = List.of("lava flow basalt basalt tephra");
    Map<String, Float> capped = LexicalFeedback.DEFAULT.expand("lava flow", texts, LexicalFeedbackTest::words,
        t -> t.equals("basalt") ? 0.5 : 0.01).bm25Terms();
    assertFalse(capped.containsKey("basalt"), capped.toString());
    assertTrue(capped.containsKey("tephra"), capped.toString());
    Map<String, Float> all = new LexicalFeedback(10, 10, 0.7, 1).expand("lava flow", texts, LexicalFeedbackTest::words,
        t -> t.equals("basalt") ? 0.5 : 0.01).bm25Terms();
    assertTrue(all.containsKey("basalt"), all.toString());
    assertEquals(0.2, LexicalFeedback.DEFAULT.maxDocRatio());
    assertTrue(LexicalFeedback.DEFAULT.describe().contains("none in over 0.2 of the chunks"),
        LexicalFeedback.DEFAULT.describe());
  }
}
