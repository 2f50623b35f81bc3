package dev.kiln.bench.scale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Realistic synthetic text: words drawn from a real corpus's unigram distribution (whitespace tokens,
 * punctuation kept, so the analyzer does real work), text and title lengths drawn from that corpus's
 * own length lists. Not meaningful prose, but BM25 sees the real vocabulary, Zipf curve and lengths.
 */
final class TextModel {
  private final String[] words;
  private final long[] cumulative;
  private final int[] textLengths;
  private final int[] titleLengths;

  private TextModel(String[] words, long[] cumulative, int[] textLengths, int[] titleLengths) {
    this.words = words;
    this.cumulative = cumulative;
    this.textLengths = textLengths;
    this.titleLengths = titleLengths;
  }

  static TextModel of(Path corpusJsonl) throws IOException {
    ObjectMapper json = new ObjectMapper();
    Map<String, Long> counts = new HashMap<>();
    List<Integer> texts = new ArrayList<>();
    List<Integer> titles = new ArrayList<>();
    try (BufferedReader r = Files.newBufferedReader(corpusJsonl)) {
      for (String line; (line = r.readLine()) != null; ) {
        if (line.isBlank()) {
          continue;
        }
        JsonNode n = json.readTree(line);
        String[] t = words(n.path("text").asText());
        String[] h = words(n.path("title").asText());
        texts.add(t.length);
        titles.add(h.length);
        for (String w : t) {
          counts.merge(w, 1L, Long::sum);
        }
        for (String w : h) {
          counts.merge(w, 1L, Long::sum);
        }
      }
    }
    String[] vocab = counts.keySet().toArray(new String[0]);
    Arrays.sort(vocab); // a stable order, so the same seed draws the same words on any JVM
    long[] cum = new long[vocab.length];
    long sum = 0;
    for (int i = 0; i < vocab.length; i++) {
      sum += counts.get(vocab[i]);
      cum[i] = sum;
    }
    return new TextModel(vocab, cum, texts.stream().mapToInt(Integer::intValue).filter(x -> x > 0).toArray(),
        titles.stream().mapToInt(Integer::intValue).filter(x -> x > 0).toArray());
  }

  private static String[] words(String s) {
    String t = s.strip();
    return t.isEmpty() ? new String[0] : t.split("\\s+");
  }

  int vocabularySize() {
    return words.length;
  }

  String text(SplittableRandom rnd) {
    return draw(rnd, textLengths[rnd.nextInt(textLengths.length)]);
  }

  String title(SplittableRandom rnd) {
    return draw(rnd, titleLengths.length == 0 ? 6 : titleLengths[rnd.nextInt(titleLengths.length)]);
  }

  private String draw(SplittableRandom rnd, int n) {
    StringBuilder b = new StringBuilder(n * 8);
    long total = cumulative[cumulative.length - 1];
    for (int i = 0; i < n; i++) {
      long x = rnd.nextLong(total);
      int at = Arrays.binarySearch(cumulative, x + 1);
      if (at < 0) {
        at = -at - 1;
      }
      if (i > 0) {
        b.append(' ');
      }
      b.append(words[at]);
    }
    return b.toString();
  }
}
