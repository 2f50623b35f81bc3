package dev.kiln.testing;

import java.util.Random;

/**
 * Seeded random text from every part of Unicode a corpus may hold, for the tests that text is never
 * altered: words of Latin, Greek, Cyrillic, Arabic, Devanagari and Han script; characters outside the
 * Basic Multilingual Plane (emoji with skin tones, zero-width-joiner sequences and flags, CJK
 * Extension B, mathematical letters, private-use planes); combining marks stacked on letters; CRLF,
 * lone CR, tabs, no-break and ideographic spaces; a byte-order mark, zero-width characters and control
 * characters inside the text; and code points drawn at random from all seventeen planes (never a
 * surrogate: those are not characters). Each word is also kept whole as written, so a test can look
 * every word up.
 */
public final class RandomUnicodeText {
  private static final String[] LATIN = {"snapshot", "Kiln", "naïve", "überprüfung", "façade", "Ærø", "shard",
      "gammaend", "manifest", "42", "x"};
  private static final String[] OTHER_SCRIPTS = {"καλημέρα", "привет", "مرحبا", "שלום", "नमस्ते", "快照", "索引",
      "检索", "カタカナ", "한국어", "ไทย"};
  private static final int[][] SUPPLEMENTARY = {
      {0x1F300, 0x1F5FF}, // pictographs
      {0x1F600, 0x1F64F}, // emoticons
      {0x1F680, 0x1F6FF}, // transport
      {0x20000, 0x2A6DF}, // CJK Extension B
      {0x1D400, 0x1D7FF}, // mathematical alphanumerics
      {0x10000, 0x1007F}, // Linear B
      {0xF0000, 0xF00FF}, // supplementary private use A
      {0xE0100, 0xE01EF}, // variation selectors supplement
  };
  private static final String[] SEQUENCES = {"👩‍💻", "👍🏽", "🇩🇪", "❤️", "🏳️‍🌈", "1️⃣", "e\u0301", "a\u0308\u0323",
      "ñ", "n\u0303", "\u0915\u094D\u0937", "𝔸𝔹ℂ", "🚀"};
  private static final String[] GAPS = {" ", " ", " ", "  ", "\r\n", "\n", "\r", "\t", "\u00A0", "\u3000",
      "\r\n\r\n", " \u200B", "\u2028"};
  private static final String[] INSIDE = {"\uFEFF", "\u200B", "\u200D", "\u0007", "\u0000", "\u00AD", "\u2060"};

  private final Random random;

  public RandomUnicodeText(Random random) {
    this.random = random;
  }

  public RandomUnicodeText(long seed) {
    this(new Random(seed));
  }

  public Random random() {
    return random;
  }

  /** One word: a letter run of some script, possibly joined to supplementary characters or marks. */
  public String word() {
    StringBuilder sb = new StringBuilder();
    switch (random.nextInt(8)) {
      case 0, 1 -> sb.append(LATIN[random.nextInt(LATIN.length)]);
      case 2 -> sb.append(OTHER_SCRIPTS[random.nextInt(OTHER_SCRIPTS.length)]);
      case 3 -> sb.append(LATIN[random.nextInt(LATIN.length)]).append(SEQUENCES[random.nextInt(SEQUENCES.length)])
          .append(LATIN[random.nextInt(LATIN.length)]);
      case 4 -> sb.appendCodePoint(supplementary());
      case 5 -> sb.append(SEQUENCES[random.nextInt(SEQUENCES.length)]);
      case 6 -> sb.appendCodePoint(anyCodePoint());
      default -> {
        sb.append(LATIN[random.nextInt(LATIN.length)]);
        for (int i = random.nextInt(3); i >= 0; i--) {
          sb.appendCodePoint(0x0300 + random.nextInt(0x70)); // combining diacritical marks
        }
      }
    }
    if (random.nextInt(12) == 0) {
      // at a code-point boundary: never between the halves of a surrogate pair
      int at = sb.offsetByCodePoints(0, random.nextInt(sb.codePointCount(0, sb.length()) + 1));
      sb.insert(at, INSIDE[random.nextInt(INSIDE.length)]);
    }
    return sb.toString();
  }

  /** Whitespace between words, as editors and exports write it. */
  public String gap() {
    return GAPS[random.nextInt(GAPS.length)];
  }

  /** {@code words} words with gaps, sometimes starting with a byte-order mark or a gap. */
  public String text(int words) {
    StringBuilder sb = new StringBuilder();
    if (random.nextInt(6) == 0) {
      sb.append('\uFEFF');
    }
    if (random.nextInt(6) == 0) {
      sb.append(gap());
    }
    for (int i = 0; i < words; i++) {
      if (i > 0) {
        sb.append(gap());
      }
      sb.append(word());
      if (random.nextInt(10) == 0) {
        sb.append(random.nextBoolean() ? "." : "。");
      }
    }
    if (random.nextInt(4) == 0) {
      sb.append(gap());
    }
    return sb.toString();
  }

  private int supplementary() {
    int[] range = SUPPLEMENTARY[random.nextInt(SUPPLEMENTARY.length)];
    return range[0] + random.nextInt(range[1] - range[0] + 1);
  }

  /** Any scalar value of the seventeen planes (assigned or not), never a surrogate. */
  private int anyCodePoint() {
    while (true) {
      int cp = random.nextInt(Character.MAX_CODE_POINT + 1);
      if (cp < Character.MIN_SURROGATE || cp > Character.MAX_SURROGATE) {
        return cp;
      }
    }
  }
}
