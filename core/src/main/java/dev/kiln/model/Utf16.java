package dev.kiln.model;

/**
 * Half of a surrogate pair is not a character: a JSON escape such as U+D800 makes one in a Java
 * string, but no UTF-8 can hold it, so Lucene would store U+FFFD in its place and the model's
 * tokenizer reads past the text. The parse stage quarantines such records; code that must not fail
 * on them (the tokenizer) replaces each with U+FFFD.
 */
public final class Utf16 {
  private Utf16() {}

  /** The index of the first unpaired surrogate in {@code text}, or -1 when every one is paired. */
  public static int firstUnpaired(CharSequence text) {
    int n = text.length();
    for (int i = 0; i < n; i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return i;
      }
    }
    return -1;
  }

  /** {@code text} with each unpaired surrogate replaced by U+FFFD (one unit for one), or itself when none is. */
  public static String replaceUnpaired(String text) {
    int at = firstUnpaired(text);
    if (at < 0) {
      return text;
    }
    StringBuilder sb = new StringBuilder(text);
    while (at >= 0) {
      sb.setCharAt(at, '\uFFFD');
      int next = firstUnpaired(sb.subSequence(at + 1, sb.length()));
      at = next < 0 ? -1 : at + 1 + next;
    }
    return sb.toString();
  }
}
