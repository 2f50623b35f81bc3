package dev.kiln.chunk;

import dev.kiln.config.ChunkerConfig;
import dev.kiln.embed.ModelTokenizer;
import dev.kiln.index.Languages;
import dev.kiln.model.Chunk;
import dev.kiln.model.ContentKey;
import dev.kiln.model.ContentType;
import dev.kiln.model.Document;
import dev.kiln.model.ParentChunk;
import java.util.ArrayList;
import java.util.List;

/**
 * Cuts one document the way the configuration says: picks the strategy for its content type, runs
 * parent-child chunking when it is on, and gives every chunk its identity — ordinal, content key,
 * language. This is where a chunk is cut.
 *
 * <p>Under parent-child chunking the document is first cut with its strategy at the parent size and
 * no overlap (sections for Markdown and HTML, large windows otherwise); each parent is then cut into
 * children at the chunk size. Children are indexed and point to their parent; parents are returned
 * to be stored once in the snapshot's docstore. A child's offsets are relative to the document (for
 * a table part or an HTML parent, to the extracted text).
 *
 * <p>A document with a precomputed vector is exactly one chunk: its whole text, under that vector,
 * whatever its length (the vector was made for the whole record, so cutting it would leave pieces
 * without vectors) and without a parent. Its text may exceed the model's max tokens: BM25 and the
 * stored text see all of it, and the vector is the caller's; Kiln never embeds it.
 */
public final class DocumentChunker {
  private final ModelTokenizer tokenizer;
  private final ChunkerConfig config;
  private final String fingerprint;

  /** A document's chunks and (under parent-child chunking) its parents. */
  public record Result(List<Chunk> chunks, List<ParentChunk> parents) {}

  public DocumentChunker(ModelTokenizer tokenizer, ChunkerConfig config) {
    this.tokenizer = tokenizer;
    this.config = config;
    // source(), as the build job's key settings: a custom model is named by its directory
    this.fingerprint = config.fingerprint(tokenizer.spec().source());
  }

  public String fingerprint() {
    return fingerprint;
  }

  public Result cut(Document doc) {
    if (doc.vector() != null) {
      return new Result(List.of(supplied(doc)), List.of());
    }
    String strategy = config.strategyFor(doc.contentType());
    // HTML is parsed once: its structure feeds the HTML chunker, its text every other strategy.
    StructuredText html = doc.contentType() == ContentType.HTML ? HtmlStructure.parse(doc.text()) : null;
    Document source = html != null && !ChunkerConfig.HTML.equals(strategy)
        ? withText(doc, html.text(), ContentType.TEXT) // window and recursive cut text, never markup
        : doc;
    String language = Languages.of(doc.metadata(), html != null ? html.text() : doc.text());
    List<Chunk> raw = new ArrayList<>();
    List<ParentChunk> parents = new ArrayList<>();
    if (!config.parents.enabled) {
      for (Chunk c : cut(strategy, config.effectiveSize(), config.effectiveOverlap(), source, html)) {
        raw.add(c.with(c.ordinal(), c.breadcrumb(), "", null, language));
      }
    } else {
      List<Chunk> bigs = cut(strategy, config.parents.size, 0, source, html);
      String childStrategy = ChunkerConfig.HTML.equals(strategy) ? ChunkerConfig.RECURSIVE : strategy;
      ContentType childType = ChunkerConfig.MARKDOWN.equals(strategy) ? ContentType.MARKDOWN : ContentType.TEXT;
      for (Chunk p : bigs) {
        String parentId = ParentChunk.parentId(doc.id(), parents.size());
        parents.add(new ParentChunk(parentId, doc.id(), parents.size(), doc.title(), p.breadcrumb(),
            p.text(), p.tokens()));
        Document parentDoc = withText(doc, p.text(), childType);
        for (Chunk c : cut(childStrategy, config.effectiveSize(), config.effectiveOverlap(), parentDoc, null)) {
          raw.add(new Chunk(c.chunkId(), doc.id(), 0, doc.title(), c.text(), p.startChar() + c.startChar(),
              p.startChar() + c.endChar(), c.tokens(), doc.metadata(), p.breadcrumb(), "", parentId,
              c.oversize(), language));
        }
      }
    }
    List<Chunk> chunks = new ArrayList<>(raw.size());
    for (Chunk c : raw) {
      String key = ContentKey.of(fingerprint, c);
      chunks.add(c.with(chunks.size(), c.breadcrumb(), key, c.parentId(), c.language()));
    }
    return new Result(chunks, parents);
  }

  /**
   * The one chunk of a record with a precomputed vector. Its tokens are not counted (0): nothing
   * downstream needs the count of a chunk that is never embedded, and the tokenizer pass was most of
   * the build's time on such corpora (measured with {@code scripts/bench-scale.sh}).
   */
  private Chunk supplied(Document doc) {
    String text = doc.text();
    Chunk c = new Chunk(Chunk.chunkId(doc.id(), 0), doc.id(), 0, doc.title(), text, 0, text.length(),
        0, doc.metadata(), "", "", null, false, Languages.of(doc.metadata(), text));
    return c.with(0, "", ContentKey.of(fingerprint, c), null, c.language()).withVector(doc.vector());
  }

  private List<Chunk> cut(String strategy, int size, int overlap, Document doc, StructuredText html) {
    return switch (strategy) {
      case ChunkerConfig.WINDOW -> new TokenWindowChunker(tokenizer, size, overlap).chunk(doc);
      case ChunkerConfig.RECURSIVE -> new RecursiveChunker(tokenizer, size, overlap).chunk(doc);
      case ChunkerConfig.MARKDOWN, ChunkerConfig.HTML -> {
        StructureChunker chunker = new StructureChunker(tokenizer, size, overlap, Math.max(config.hardCap, size));
        yield html != null ? chunker.chunk(doc, html) : chunker.chunk(doc);
      }
      default -> throw new IllegalArgumentException("unknown chunker strategy '" + strategy + "'");
    };
  }

  private static Document withText(Document doc, String text, ContentType type) {
    return new Document(doc.id(), doc.title(), text, doc.metadata(), doc.sourceUri(), type);
  }
}
