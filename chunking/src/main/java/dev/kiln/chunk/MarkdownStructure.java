package dev.kiln.chunk;

import java.util.ArrayList;
import java.util.List;
import org.commonmark.ext.gfm.tables.TableBlock;
import org.commonmark.ext.gfm.tables.TablesExtension;
import org.commonmark.node.AbstractVisitor;
import org.commonmark.node.Code;
import org.commonmark.node.FencedCodeBlock;
import org.commonmark.node.Heading;
import org.commonmark.node.IndentedCodeBlock;
import org.commonmark.node.Node;
import org.commonmark.node.SourceSpan;
import org.commonmark.node.Text;
import org.commonmark.parser.IncludeSourceSpans;
import org.commonmark.parser.Parser;

/**
 * Markdown to blocks with CommonMark (GitHub tables included). Blocks are the top-level nodes of the
 * parse, located by their source spans, so a chunk's text stays an exact slice of the Markdown source:
 * code keeps its fences and tables their pipes.
 */
public final class MarkdownStructure {
  private static final Parser PARSER = Parser.builder()
      .extensions(List.of(TablesExtension.create()))
      .includeSourceSpans(IncludeSourceSpans.BLOCKS)
      .build();

  private MarkdownStructure() {}

  public static StructuredText parse(String markdown) {
    Node root = PARSER.parse(markdown);
    List<Block> blocks = new ArrayList<>();
    List<String> path = new ArrayList<>();
    List<Integer> levels = new ArrayList<>();
    for (Node n = root.getFirstChild(); n != null; n = n.getNext()) {
      List<SourceSpan> spans = n.getSourceSpans();
      if (spans.isEmpty()) {
        continue;
      }
      int start = spans.get(0).getInputIndex();
      SourceSpan last = spans.get(spans.size() - 1);
      int end = Math.min(markdown.length(), last.getInputIndex() + last.getLength());
      if (n instanceof Heading h) {
        while (!levels.isEmpty() && levels.get(levels.size() - 1) >= h.getLevel()) {
          levels.remove(levels.size() - 1);
          path.remove(path.size() - 1);
        }
        levels.add(h.getLevel());
        path.add(headingText(h));
        blocks.add(new Block(Block.Kind.HEADING, start, end, String.join(" > ", path), start));
      } else if (n instanceof FencedCodeBlock || n instanceof IndentedCodeBlock) {
        blocks.add(new Block(Block.Kind.CODE, start, end, String.join(" > ", path), start));
      } else if (n instanceof TableBlock) {
        // Header row, then the delimiter row: the header ends at the end of the second line.
        int firstNl = markdown.indexOf('\n', start);
        int secondNl = firstNl < 0 || firstNl >= end ? -1 : markdown.indexOf('\n', firstNl + 1);
        int headerEnd = secondNl < 0 || secondNl >= end ? end : secondNl;
        blocks.add(new Block(Block.Kind.TABLE, start, end, String.join(" > ", path), headerEnd));
      } else {
        blocks.add(new Block(Block.Kind.TEXT, start, end, String.join(" > ", path), start));
      }
    }
    return new StructuredText(markdown, blocks);
  }

  static String headingText(Heading heading) {
    StringBuilder sb = new StringBuilder();
    heading.accept(new AbstractVisitor() {
      @Override
      public void visit(Text text) {
        sb.append(text.getLiteral());
      }

      @Override
      public void visit(Code code) {
        sb.append(code.getLiteral());
      }
    });
    // '>' separates breadcrumb levels: keep it out of heading text.
    return sb.toString().replace('>', '›').replaceAll("\\s+", " ").strip();
  }
}
