package dev.kiln.chunk;

import dev.kiln.testing.TestSeeds;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Seeded random documents for the chunker property tests: English and Chinese prose with sentence
 * ends of both scripts, and Markdown or HTML pages with nested headings, lists, fenced code and
 * tables. Each generated page also reports its code blocks and tables, so tests can check that those
 * stay whole.
 */
final class RandomDocuments {
  private static final String[] WORDS = {"snapshot", "shard", "the", "of", "Lucene", "vectorisation",
      "HNSW", "graph,", "embedding", "tokenizer", "überprüfung", "naïve", "42", "x", "(parallel)",
      "batch-mode", "manifest", "a", "is", "checksum"};
  private static final String[] HAN = {"快照", "索引", "分词", "检索", "向量", "文档", "发布", "校验", "中文", "模型"};
  private static final String[] CJK_STOPS = {"。", "！", "？", "；"};

  private final Random random;

  /** Indivisible blocks of the last page generated, as they appear in its source. */
  final List<String> codeBlocks = new ArrayList<>();
  final List<String> tables = new ArrayList<>();

  RandomDocuments(long seed) {
    // Document n of a run is drawn from the run's base seed (TestSeeds), so -Dkiln.tests.seed varies them.
    this.random = new Random(TestSeeds.derive("RandomDocuments/" + seed));
  }

  Random random() {
    return random;
  }

  String englishSentence() {
    StringBuilder sb = new StringBuilder();
    int n = 3 + random.nextInt(14);
    for (int i = 0; i < n; i++) {
      sb.append(i == 0 ? "" : random.nextInt(6) == 0 ? "  " : " ").append(WORDS[random.nextInt(WORDS.length)]);
    }
    return sb.append(random.nextBoolean() ? "." : random.nextBoolean() ? "!" : "?").toString();
  }

  String chineseSentence() {
    StringBuilder sb = new StringBuilder();
    int n = 3 + random.nextInt(12);
    for (int i = 0; i < n; i++) {
      sb.append(random.nextInt(8) == 0 ? " Lucene " : HAN[random.nextInt(HAN.length)]);
    }
    return sb.append(CJK_STOPS[random.nextInt(CJK_STOPS.length)]).toString();
  }

  String paragraph(double chinese) {
    StringBuilder sb = new StringBuilder();
    int n = 1 + random.nextInt(6);
    for (int i = 0; i < n; i++) {
      boolean zh = random.nextDouble() < chinese;
      if (i > 0 && !zh) {
        sb.append(random.nextInt(5) == 0 ? "\n" : " ");
      }
      sb.append(zh ? chineseSentence() : englishSentence());
    }
    return sb.toString();
  }

  /** Plain text: paragraphs separated by blank lines. */
  String text(double chinese) {
    StringBuilder sb = new StringBuilder();
    int n = random.nextInt(12);
    for (int i = 0; i < n; i++) {
      sb.append(i == 0 ? "" : "\n\n").append(paragraph(chinese));
    }
    return sb.toString();
  }

  String markdown() {
    codeBlocks.clear();
    tables.clear();
    StringBuilder sb = new StringBuilder();
    int blocks = 1 + random.nextInt(16);
    for (int i = 0; i < blocks; i++) {
      if (i > 0) {
        sb.append("\n\n");
      }
      switch (random.nextInt(7)) {
        case 0, 1 -> sb.append("#".repeat(1 + random.nextInt(4))).append(' ').append(words(1 + random.nextInt(4)));
        case 2 -> {
          String code = code();
          codeBlocks.add(code);
          sb.append(code);
        }
        case 3 -> {
          String table = markdownTable();
          tables.add(table);
          sb.append(table);
        }
        case 4 -> sb.append(list());
        default -> sb.append(paragraph(0.2));
      }
    }
    return sb.toString();
  }

  String html() {
    StringBuilder sb = new StringBuilder("<html><head><title>").append(words(2))
        .append("</title><script>var x = 'never indexed';</script></head><body><nav>menu</nav>");
    int blocks = 1 + random.nextInt(16);
    for (int i = 0; i < blocks; i++) {
      switch (random.nextInt(6)) {
        case 0, 1 -> {
          int level = 1 + random.nextInt(4);
          sb.append("<h").append(level).append('>').append(words(1 + random.nextInt(3))).append("</h").append(level).append('>');
        }
        case 2 -> sb.append("<pre>").append(codeLines()).append("</pre>");
        case 3 -> {
          sb.append("<table><tr><th>k</th><th>v</th></tr>");
          int rows = 1 + random.nextInt(20);
          for (int r = 0; r < rows; r++) {
            sb.append("<tr><td>").append(words(1 + random.nextInt(3))).append("</td><td>").append(random.nextInt(1000)).append("</td></tr>");
          }
          sb.append("</table>");
        }
        case 4 -> sb.append("<ul><li>").append(words(3)).append("</li><li>").append(paragraph(0.2)).append("</li></ul>");
        default -> sb.append("<p>").append(paragraph(0.2)).append(" <em>").append(words(2)).append("</em></p>");
      }
    }
    return sb.append("<footer>footer</footer></body></html>").toString();
  }

  private String words(int n) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      sb.append(i == 0 ? "" : " ").append(WORDS[random.nextInt(WORDS.length)].replaceAll("[^\\p{L}0-9]", ""));
    }
    return sb.toString().isBlank() ? "word" : sb.toString();
  }

  private String codeLines() {
    StringBuilder sb = new StringBuilder();
    int lines = 1 + random.nextInt(random.nextInt(4) == 0 ? 40 : 8);
    for (int i = 0; i < lines; i++) {
      sb.append(i == 0 ? "" : "\n").append("call(").append(words(1 + random.nextInt(4)).replace(' ', '_')).append(", ")
          .append(random.nextInt(100)).append(");");
    }
    return sb.toString();
  }

  private String code() {
    return "```java\n" + codeLines() + "\n```";
  }

  private String markdownTable() {
    StringBuilder sb = new StringBuilder("| key | value |\n| --- | --- |");
    int rows = 1 + random.nextInt(random.nextInt(3) == 0 ? 40 : 6);
    for (int r = 0; r < rows; r++) {
      sb.append("\n| ").append(words(1 + random.nextInt(3))).append(" | ").append(random.nextInt(10000)).append(" |");
    }
    return sb.toString();
  }

  private String list() {
    StringBuilder sb = new StringBuilder();
    int items = 1 + random.nextInt(6);
    for (int i = 0; i < items; i++) {
      sb.append(i == 0 ? "" : "\n").append(random.nextInt(3) == 0 ? "  - " : "- ").append(paragraph(0.1).replace('\n', ' '));
    }
    return sb.toString();
  }
}
