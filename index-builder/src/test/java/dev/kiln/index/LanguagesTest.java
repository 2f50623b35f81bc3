package dev.kiln.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class LanguagesTest {
  @Test
  void noCodePointBelowTheFirstHanOneIsHan() {
    for (int cp = 0; cp < Languages.FIRST_HAN; cp++) {
      assertFalse(Character.UnicodeScript.of(cp) == Character.UnicodeScript.HAN, "U+" + Integer.toHexString(cp));
    }
    assertEquals(Character.UnicodeScript.HAN, Character.UnicodeScript.of(Languages.FIRST_HAN));
  }

  @Test
  void aQuarterOfHanLettersMakesATextChinese() {
    assertTrue(Languages.isChinese("蛋白质的表达"));
    assertTrue(Languages.isChinese("abc 蛋")); // 1 of 4 letters
    assertFalse(Languages.isChinese("abcd 蛋")); // 1 of 5
    assertFalse(Languages.isChinese("Protein expression in β-cells, naïve mice"));
    assertFalse(Languages.isChinese("1234 !?"));
    assertTrue(Languages.isChinese("\u2e80 abc")); // the first Han code point counts: 1 of 4 letters
  }

  @Test
  void metadataDecidesBeforeTheText() {
    assertEquals(Languages.CHINESE, Languages.of(Map.of("lang", "zh-Hans"), "plain English"));
    assertEquals("", Languages.of(Map.of("language", "en"), "蛋白质的表达"));
    assertEquals(Languages.CHINESE, Languages.of(Map.of(), "蛋白质的表达"));
  }
}
