package dev.kiln.chunk;

import java.util.ArrayList;
import java.util.List;

/**
 * Window arithmetic of the sliding-window chunker, over token positions only: windows of at most
 * {@code size} tokens, each starting {@code size - overlap} tokens after the previous one, the last
 * one ending at the last token.
 */
public final class TokenWindows {
  private TokenWindows() {}

  /** Half-open token ranges {@code [start, end)} covering {@code tokens} tokens. */
  public static List<int[]> windows(int tokens, int size, int overlap) {
    if (size <= 0 || overlap < 0 || overlap >= size) {
      throw new IllegalArgumentException("need size > 0 and 0 <= overlap < size, got " + size + "/" + overlap);
    }
    List<int[]> out = new ArrayList<>();
    if (tokens == 0) {
      return out;
    }
    int step = size - overlap;
    for (int start = 0; ; start += step) {
      int end = Math.min(tokens, start + size);
      out.add(new int[] {start, end});
      if (end == tokens) {
        return out;
      }
    }
  }
}
