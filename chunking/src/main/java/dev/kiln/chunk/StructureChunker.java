package dev.kiln.chunk;

import dev.kiln.embed.ModelTokenizer;
import dev.kiln.model.Chunk;
import dev.kiln.model.Document;
import java.util.ArrayList;
import java.util.List;

/**
 * Structure-aware chunking of Markdown and HTML. Blocks of one section (the blocks under one heading)
 * are packed into chunks of at most {@code size} tokens; a chunk never spans two sections and carries
 * its section's heading breadcrumb. A section's heading stays with its first blocks, and headings
 * with no text of their own stay with the next section's first chunk.
 *
 * <p>Code blocks and tables are indivisible: one larger than {@code size} but within {@code hardCap}
 * becomes a chunk of its own, flagged oversize. Beyond the hard cap code is cut recursively (lines
 * first) and a table row by row, every part starting with the table's header row again. Long text
 * blocks are cut recursively with the configured overlap.
 */
public final class StructureChunker implements Chunker {
  private final ModelTokenizer tokenizer;
  private final int size;
  private final int hardCap;
  private final RecursiveSplitter splitter;

  public StructureChunker(ModelTokenizer tokenizer, int size, int overlap, int hardCap) {
    this.tokenizer = tokenizer;
    this.size = size;
    this.hardCap = hardCap;
    this.splitter = new RecursiveSplitter(size, overlap);
  }

  /** Parses the document by its content type (Markdown, or HTML; text is one block per paragraph). */
  @Override
  public List<Chunk> chunk(Document doc) {
    return chunk(doc, Structures.of(doc));
  }

  public List<Chunk> chunk(Document doc, StructuredText structure) {
    return new Run(doc, structure).run();
  }

  /** One document's chunking state. */
  private final class Run {
    private final Document doc;
    private final List<Block> blocks;
    private final TokenSpans spans;
    private final List<Chunk> out = new ArrayList<>();
    /** First token not yet in any chunk: the next chunk starts here, so nothing between blocks is lost. */
    private int cursor;
    private int pendingEnd = -1;
    private boolean pendingHasText;
    private String crumb = "";

    Run(Document doc, StructuredText structure) {
      this.doc = doc;
      this.blocks = structure.blocks();
      this.spans = TokenSpans.of(tokenizer, structure.text());
    }

    List<Chunk> run() {
      for (Block b : blocks) {
        int[] tr = spans.tokensIn(b.start(), b.end());
        if (tr[1] <= tr[0]) {
          continue;
        }
        if (b.kind() == Block.Kind.HEADING) {
          if (pendingHasText || (pending() && tr[1] - cursor > size)) {
            flush();
          }
          pendingEnd = tr[1];
          crumb = b.breadcrumb();
          continue;
        }
        if (pending() && !crumb.equals(b.breadcrumb()) && pendingHasText) {
          flush();
        }
        crumb = b.breadcrumb();
        int from = cursor;
        if (tr[1] - from > size && pendingHasText) {
          flush(); // the block does not fit with the text pending: that text becomes a chunk
          from = cursor;
        }
        if (tr[1] - from <= size) {
          pendingEnd = tr[1];
          pendingHasText = true;
          continue;
        }
        if (b.kind().indivisible() && tr[1] - from <= hardCap) {
          emit(from, tr[1], tr[1] - from > size);
        } else if (b.kind().indivisible() && tr[1] - tr[0] <= hardCap) {
          flush(); // a heading waiting for this block would push it over the hard cap
          emit(tr[0], tr[1], tr[1] - tr[0] > size);
        } else if (b.kind() == Block.Kind.TABLE) {
          tableParts(b, tr, from);
        } else {
          // Long text, or code over the hard cap: recursive split, pending headings included.
          for (int[] r : splitter.split(spans, from, tr[1])) {
            emit(r[0], r[1], false);
          }
        }
        pendingEnd = -1;
        pendingHasText = false;
        cursor = Math.max(cursor, tr[1]);
      }
      if (spans.size() > cursor) {
        pendingEnd = spans.size();
        if (spans.size() - cursor > size) {
          for (int[] r : splitter.split(spans, cursor, spans.size())) {
            emit(r[0], r[1], false);
          }
          cursor = spans.size();
          pendingEnd = -1;
        }
      }
      flushIfPending();
      if (out.isEmpty() && !doc.title().isBlank()) {
        out.add(new Chunk(Chunk.chunkId(doc.id(), 0), doc.id(), 0, doc.title(), "", 0, 0, 0,
            doc.metadata()));
      }
      return out;
    }

    private boolean pending() {
      return pendingEnd > cursor;
    }

    private void flushIfPending() {
      if (pending()) {
        flush();
      }
    }

    private void flush() {
      if (pending()) {
        emit(cursor, pendingEnd, false);
      }
      pendingEnd = -1;
      pendingHasText = false;
    }

    private void emit(int from, int to, boolean oversize) {
      if (to <= from) {
        return;
      }
      int ordinal = out.size();
      int startChar = spans.start(from);
      int endChar = spans.end(to - 1);
      out.add(new Chunk(Chunk.chunkId(doc.id(), ordinal), doc.id(), ordinal, doc.title(),
          spans.text().substring(startChar, endChar), startChar, endChar, to - from, doc.metadata(),
          crumb, "", null, oversize, ""));
      cursor = Math.max(cursor, to);
    }

    /**
     * A table over the hard cap: rows packed into parts, each repeating the header. The first part
     * is the exact source from {@code from} (a heading waiting for the table included).
     */
    private void tableParts(Block b, int[] tr, int from) {
      int headerTo = spans.firstAtOrAfter(b.headerEnd());
      String header = spans.slice(tr[0], headerTo);
      int headerTokens = headerTo - tr[0];
      List<int[]> rows = rowTokenRanges(headerTo, tr[1]);
      int i = 0;
      boolean first = true;
      while (i < rows.size()) {
        int partFrom = first ? from : rows.get(i)[0];
        int budget = first ? size : size - headerTokens;
        int j = i;
        while (j < rows.size() && rows.get(j)[1] - partFrom <= budget) {
          j++;
        }
        if (j == i) {
          // One row alone is over the budget with the header.
          int[] row = rows.get(i);
          if (row[1] - partFrom + (first ? 0 : headerTokens) <= hardCap) {
            emitTablePart(first ? null : header, headerTokens, partFrom, row[1], true);
          } else if (first && partFrom < tr[0] && row[1] - tr[0] <= hardCap) {
            // Only the heading waiting for the table pushes the first part over the hard cap: the
            // heading goes alone, and the part starts at the header row as every part does.
            headerOnItsOwn(partFrom, tr[0]);
            emitTablePart(null, headerTokens, tr[0], row[1], row[1] - tr[0] > size);
          } else {
            if (first) {
              headerOnItsOwn(partFrom, row[0]);
            }
            for (int[] r : splitter.split(spans, row[0], row[1])) {
              emit(r[0], r[1], false);
            }
          }
          i++;
        } else {
          emitTablePart(first ? null : header, headerTokens, partFrom, rows.get(j - 1)[1], false);
          i = j;
        }
        first = false;
      }
      if (rows.isEmpty()) {
        emit(from, tr[1], tr[1] - from > size);
      }
      cursor = Math.max(cursor, tr[1]);
    }

    /**
     * The header row (and any heading waiting for the table) of a table whose first row does not fit
     * with it: a chunk of its own, flagged oversize when over the size, and cut recursively when even
     * the hard cap cannot hold it (a long heading over a wide header), like any other text.
     */
    private void headerOnItsOwn(int from, int to) {
      if (to - from <= hardCap) {
        emit(from, to, to - from > size);
      } else {
        for (int[] r : splitter.split(spans, from, to)) {
          emit(r[0], r[1], false);
        }
      }
    }

    private List<int[]> rowTokenRanges(int fromToken, int toToken) {
      List<int[]> rows = new ArrayList<>();
      String text = spans.text();
      int rowStart = fromToken;
      for (int t = fromToken + 1; t <= toToken; t++) {
        boolean lineBreak = t == toToken || text.substring(spans.end(t - 1), spans.start(t)).indexOf('\n') >= 0;
        if (lineBreak) {
          rows.add(new int[] {rowStart, t});
          rowStart = t;
        }
      }
      return rows;
    }

    /** A table part: the exact source when {@code header} is null, else the header, then the rows. */
    private void emitTablePart(String header, int headerTokens, int from, int to, boolean oversize) {
      int ordinal = out.size();
      int startChar = spans.start(from);
      int endChar = spans.end(to - 1);
      String rows = spans.text().substring(startChar, endChar);
      out.add(new Chunk(Chunk.chunkId(doc.id(), ordinal), doc.id(), ordinal, doc.title(),
          header == null ? rows : header + "\n" + rows, startChar, endChar,
          (header == null ? 0 : headerTokens) + to - from, doc.metadata(), crumb, "", null, oversize, ""));
      cursor = Math.max(cursor, to);
    }
  }
}
