package dev.kiln.chunk;

import dev.kiln.embed.ModelTokenizer;
import java.util.Arrays;

/**
 * A text and the character spans of its model tokens. Chunkers tokenize a document once and then
 * work on token positions: a range of tokens {@code [from, to)} is the text from the first token's
 * first character to the last token's last character.
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
    return new TokenSpans(text, spans[0], spans[1]);
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
