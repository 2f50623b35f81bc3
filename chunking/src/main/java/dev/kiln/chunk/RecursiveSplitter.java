package dev.kiln.chunk;

import java.util.ArrayList;
import java.util.List;

/**
 * Recursive splitting over a delimiter hierarchy, within a token budget. A range that does not fit is
 * cut at its strongest breaks: blank line, then line, then sentence end (including Chinese
 * {@code 。！？；}), then whitespace between words, then any token boundary (the character level: a
 * cut inside a token is never needed). The pieces are then packed greedily into chunks of at most
 * {@code size} tokens. Each chunk after the first starts up to {@code overlap} tokens before the end
 * of the previous one, at a word boundary where there is one, so overlaps never exceed the setting.
 */
public final class RecursiveSplitter {
  static final int BLANK_LINE = 0;
  static final int LINE = 1;
  static final int SENTENCE = 2;
  static final int WORD = 3;
  static final int TOKEN = 4;

  private final int size;
  private final int overlap;

  public RecursiveSplitter(int size, int overlap) {
    if (size < 1 || overlap < 0 || overlap >= size) {
      throw new IllegalArgumentException("need size > 0 and 0 <= overlap < size, got " + size + "/" + overlap);
    }
    this.size = size;
    this.overlap = overlap;
  }

  /** Token ranges {@code [start, end)} covering tokens {@code [from, to)} of {@code spans}. */
  public List<int[]> split(TokenSpans spans, int from, int to) {
    List<int[]> out = new ArrayList<>();
    if (from >= to) {
      return out;
    }
    int[] level = breakLevels(spans, from, to);
    List<int[]> pieces = new ArrayList<>();
    pieces(level, from, from, to, BLANK_LINE, pieces);
    pack(level, from, pieces, out);
    return out;
  }

  /**
   * {@code level[i - from]} is the strength of the break before token {@code i} (lower is stronger);
   * the first token has no break before it.
   */
  static int[] breakLevels(TokenSpans spans, int from, int to) {
    String text = spans.text();
    int[] level = new int[to - from];
    level[0] = TOKEN;
    for (int i = from + 1; i < to; i++) {
      int gapFrom = spans.end(i - 1);
      int gapTo = Math.max(gapFrom, spans.start(i));
      int newlines = 0;
      boolean space = false;
      for (int c = gapFrom; c < gapTo; c++) {
        char ch = text.charAt(c);
        if (ch == '\n') {
          newlines++;
        } else if (Character.isWhitespace(ch)) {
          space = true;
        }
      }
      char last = text.charAt(spans.end(i - 1) - 1);
      if (newlines >= 2) {
        level[i - from] = BLANK_LINE;
      } else if (newlines == 1) {
        level[i - from] = LINE;
      } else if (isFullStop(last) && (space || isCjkStop(last))) {
        level[i - from] = SENTENCE;
      } else if (space) {
        level[i - from] = WORD;
      } else {
        level[i - from] = TOKEN;
      }
    }
    return level;
  }

  static boolean isFullStop(char c) {
    return c == '.' || c == '!' || c == '?' || c == ';' || isCjkStop(c);
  }

  static boolean isCjkStop(char c) {
    return c == '。' || c == '！' || c == '？' || c == '；' || c == '…';
  }

  /** Cuts {@code [lo, hi)} at breaks of this level or stronger; recurses into parts that do not fit. */
  private void pieces(int[] level, int base, int lo, int hi, int depth, List<int[]> out) {
    if (hi - lo <= size) {
      out.add(new int[] {lo, hi});
      return;
    }
    if (depth == TOKEN) {
      for (int s = lo; s < hi; s += size) {
        out.add(new int[] {s, Math.min(hi, s + size)});
      }
      return;
    }
    int partStart = lo;
    for (int i = lo + 1; i <= hi; i++) {
      if (i == hi || level[i - base] <= depth) {
        pieces(level, base, partStart, i, depth + 1, out);
        partStart = i;
      }
    }
  }

  /** Greedy packing of pieces into chunks, each after the first starting with the overlap. */
  private void pack(int[] level, int base, List<int[]> pieces, List<int[]> out) {
    int start = pieces.get(0)[0];
    int end = start;
    for (int[] p : pieces) {
      if (p[1] - start > size && end > start) {
        out.add(new int[] {start, end});
        start = overlapStart(level, base, start, end, p[1]);
      }
      end = p[1];
    }
    out.add(new int[] {start, end});
  }

  /**
   * Where the chunk after {@code [prevStart, prevEnd)} starts: as far back as the overlap allows, on a
   * word break if the overlap holds one, and never so far back that the next piece (ending at
   * {@code nextEnd}) would not fit.
   */
  private int overlapStart(int[] level, int base, int prevStart, int prevEnd, int nextEnd) {
    int earliest = Math.max(prevStart + 1, Math.max(prevEnd - overlap, nextEnd - size));
    if (earliest >= prevEnd) {
      return prevEnd;
    }
    for (int i = earliest; i < prevEnd; i++) {
      if (level[i - base] <= WORD) {
        return i;
      }
    }
    // No word break inside the overlap (Chinese, or one long word): cut at a token boundary.
    return earliest;
  }
}
