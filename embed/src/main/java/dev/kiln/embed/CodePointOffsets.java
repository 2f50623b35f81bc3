package dev.kiln.embed;

import dev.kiln.model.Utf16;

/**
 * Turns the tokenizer's offsets into Java string indices. The Hugging Face tokenizer counts Unicode
 * code points, a Java {@code String} counts UTF-16 units; the two differ after every character outside
 * the Basic Multilingual Plane (an emoji, CJK Extension B, mathematical letters), and using one as the
 * other cut a unit off the end of a chunk per such character.
 *
 * <p>The tokenizer also cannot take half of a surrogate pair (a JSON escape of U+D800 makes one):
 * its native side reads the string as modified UTF-8 and answers offsets past the end. The tokenizer
 * is given {@link Utf16#replaceUnpaired} of the text instead, one unit for one, so the offsets of that
 * copy are offsets into the original.
 */
final class CodePointOffsets {
  private CodePointOffsets() {}

  /**
   * Rewrites the first {@code count} code-point offsets of each array into UTF-16 indices of {@code
   * text}, in place. Offsets need not be sorted; each is looked up in a table of the text's code-point
   * starts, built only when the text holds a supplementary character (otherwise the two agree).
   */
  static void toUtf16(String text, int count, int[]... offsets) {
    int units = text.length();
    int codePoints = text.codePointCount(0, units);
    if (codePoints == units) {
      return;
    }
    int[] unitOf = new int[codePoints + 1];
    for (int cp = 0, i = 0; cp < codePoints; cp++) {
      unitOf[cp] = i;
      i += Character.charCount(text.codePointAt(i));
    }
    unitOf[codePoints] = units;
    for (int[] array : offsets) {
      for (int k = 0; k < count; k++) {
        // An offset past the end would be the tokenizer's error; clamp rather than index out of range.
        array[k] = unitOf[Math.min(Math.max(array[k], 0), codePoints)];
      }
    }
  }
}
