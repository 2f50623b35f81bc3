package dev.kiln.chunk;

import dev.kiln.embed.ModelTokenizer;
import java.util.Arrays;

/**
 * A text and the character spans of its model tokens. Chunkers tokenize a document once and then
 * work on token positions: a range of tokens {@code [from, to)} is the text from the first token's
 * first character to the last token's last character.
 *
 * <p>The tokenizer's normaliser drops some characters without a token: combining accents (U+0301
 * after an {@code e}), control and format characters (a byte-order mark, U+0007). A span
 * here is stretched over every such character that follows its token up to the next token, and the
 * first over those before it, so that a cut between two tokens never loses a character: every
 * character that is not whitespace lies in some token's span, and the spans keep their order.
 */
public final class TokenSpans {
  private final String text;
  private final int[] starts;
  private final int[] ends;

  TokenSpans(String text, int[] starts, int[] ends) {
    this.text = text;
    this.starts = starts;
    this.ends = ends;
  }

  public static TokenSpans of(ModelTokenizer tokenizer, String text) {
    int[][] spans = tokenizer.tokenSpans(text);
    coverUntokenized(text, spans[0], spans[1]);
    return new TokenSpans(text, spans[0], spans[1]);
  }

  /**
   * Moves the first start back to the text's first non-whitespace character and each end forward
   * to the last non-whitespace character before the next token (or the text's end).
   */
  static void coverUntokenized(String text, int[] starts, int[] ends) {
    int n = starts.length;
    if (n == 0) {
      return;
    }
    int first = 0;
    while (first < starts[0] && Character.isWhitespace(text.codePointAt(first))) {
      first += Character.charCount(text.codePointAt(first));
    }
    starts[0] = Math.min(starts[0], first);
    for (int i = 0; i < n; i++) {
      int gapEnd = i + 1 < n ? starts[i + 1] : text.length();
      int last = gapEnd;
      while (last > ends[i] && Character.isWhitespace(text.codePointBefore(last))) {
        last -= Character.charCount(text.codePointBefore(last));
      }
      ends[i] = Math.max(ends[i], last);
    }
  }

  public String text() {
    return text;
  }

  public int size() {
    return starts.length;
  }

  public int start(int token) {
    return starts[token];
  }

  public int end(int token) {
    return ends[token];
  }

  /** The first token starting at or after {@code charOffset} ({@link #size()} when none does). */
  public int firstAtOrAfter(int charOffset) {
    int i = Arrays.binarySearch(starts, charOffset);
    if (i >= 0) {
      while (i > 0 && starts[i - 1] == charOffset) {
        i--; // several tokens can start at one offset (normaliser expansions)
      }
      return i;
    }
    return -i - 1;
  }

  /** Tokens {@code [from, to)} of the tokens that start inside the characters {@code [charFrom, charTo)}. */
  public int[] tokensIn(int charFrom, int charTo) {
    return new int[] {firstAtOrAfter(charFrom), firstAtOrAfter(charTo)};
  }

  /** The source text of tokens {@code [from, to)}; empty for an empty range. */
  public String slice(int from, int to) {
    return from >= to ? "" : text.substring(starts[from], ends[to - 1]);
  }
}
