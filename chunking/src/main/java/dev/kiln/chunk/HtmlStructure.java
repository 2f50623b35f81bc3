package dev.kiln.chunk;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Element;
import org.jsoup.nodes.Node;
import org.jsoup.nodes.TextNode;

/**
 * HTML to blocks with jsoup. Page furniture (script, style, nav, header, footer, aside and similar)
 * is dropped; headings, paragraphs, lists, preformatted code and tables become blocks of an extracted
 * text in which blocks are separated by blank lines. Lists become {@code "- item"} lines (nested
 * lists indented); tables become {@code "a | b"} lines whose first line is the header row.
 */
public final class HtmlStructure {
  private static final Set<String> DROPPED = Set.of("script", "style", "nav", "header", "footer",
      "aside", "noscript", "template", "iframe", "svg", "canvas", "form", "button", "select", "head");

  private final StringBuilder text = new StringBuilder();
  private final List<Block> blocks = new ArrayList<>();
  private final List<String> path = new ArrayList<>();
  private final List<Integer> levels = new ArrayList<>();
  private final StringBuilder inline = new StringBuilder();

  private HtmlStructure() {}

  public static StructuredText parse(String html) {
    HtmlStructure s = new HtmlStructure();
    Element body = Jsoup.parse(html).body();
    s.walk(body);
    s.flushInline();
    return new StructuredText(s.text.toString(), List.copyOf(s.blocks));
  }

  /** The page title: {@code <title>}, else the first {@code <h1>}, else {@code fallback}. */
  public static String title(String html, String fallback) {
    var doc = Jsoup.parse(html);
    String t = doc.title().strip();
    if (t.isEmpty()) {
      Element h1 = doc.selectFirst("h1");
      t = h1 == null ? "" : h1.text().strip();
    }
    return t.isEmpty() ? fallback : t;
  }

  private void walk(Element container) {
    for (Node child : container.childNodes()) {
      if (child instanceof TextNode t) {
        inline.append(t.getWholeText());
      } else if (child instanceof Element e) {
        String tag = e.normalName();
        if (DROPPED.contains(tag)) {
          continue;
        }
        int level = headingLevel(tag);
        if (level > 0) {
          flushInline();
          heading(level, e.text());
        } else if (tag.equals("pre")) {
          flushInline();
          add(Block.Kind.CODE, e.wholeText().strip(), 0);
        } else if (tag.equals("table")) {
          flushInline();
          table(e);
        } else if (tag.equals("ul") || tag.equals("ol")) {
          flushInline();
          StringBuilder sb = new StringBuilder();
          list(e, 0, sb);
          add(Block.Kind.TEXT, sb.toString().stripTrailing(), 0);
        } else if (tag.equals("br")) {
          inline.append('\n');
        } else if (e.tag().isBlock() || tag.equals("p")) {
          flushInline();
          walk(e);
          flushInline();
        } else {
          walk(e); // inline element: its text joins the running paragraph
        }
      }
    }
  }

  private static int headingLevel(String tag) {
    if (tag.length() == 2 && tag.charAt(0) == 'h' && tag.charAt(1) >= '1' && tag.charAt(1) <= '6') {
      return tag.charAt(1) - '0';
    }
    return 0;
  }

  private void heading(int level, String title) {
    String h = title.replace('>', '›').replaceAll("\\s+", " ").strip();
    if (h.isEmpty()) {
      return;
    }
    while (!levels.isEmpty() && levels.get(levels.size() - 1) >= level) {
      levels.remove(levels.size() - 1);
      path.remove(path.size() - 1);
    }
    levels.add(level);
    path.add(h);
    add(Block.Kind.HEADING, h, 0);
  }

  private void list(Element list, int depth, StringBuilder out) {
    for (Element li : list.children()) {
      if (!li.normalName().equals("li")) {
        continue;
      }
      Element own = li.clone();
      own.select("ul, ol").remove();
      String item = own.text().strip();
      if (!item.isEmpty()) {
        out.append("  ".repeat(depth)).append("- ").append(item).append('\n');
      }
      for (Element nested : li.children()) {
        if (nested.normalName().equals("ul") || nested.normalName().equals("ol")) {
          list(nested, depth + 1, out);
        }
      }
    }
  }

  @SuppressWarnings("ReferenceEquality") // the very same table element, not an equal one
  private void table(Element table) {
    List<String> rows = new ArrayList<>();
    for (Element tr : table.select("tr")) {
      if (tr.closest("table") != table) {
        continue; // rows of a nested table belong to that table's cell text
      }
      List<String> cells = new ArrayList<>();
      for (Element cell : tr.children()) {
        String n = cell.normalName();
        if (n.equals("td") || n.equals("th")) {
          cells.add(cell.text().replace('|', '/').strip());
        }
      }
      if (!cells.isEmpty()) {
        rows.add(String.join(" | ", cells));
      }
    }
    if (rows.isEmpty()) {
      return;
    }
    add(Block.Kind.TABLE, String.join("\n", rows), rows.get(0).length());
  }

  private void flushInline() {
    String t = inline.toString().replaceAll("[ \\t\\x0B\\f\\r]+", " ").replaceAll(" ?\n ?", "\n")
        .replaceAll("\n{3,}", "\n\n").strip();
    inline.setLength(0);
    if (!t.isEmpty()) {
      add(Block.Kind.TEXT, t, 0);
    }
  }

  /** Appends a block; {@code headerLength} is the length of a table's header row. */
  private void add(Block.Kind kind, String content, int headerLength) {
    if (content.isEmpty()) {
      return;
    }
    if (text.length() > 0) {
      text.append("\n\n");
    }
    int start = text.length();
    text.append(content);
    blocks.add(new Block(kind, start, text.length(), String.join(" > ", path),
        kind == Block.Kind.TABLE ? start + headerLength : start));
  }
}
