package dev.kiln.chunk;

import dev.kiln.model.Document;
import java.util.List;

/** The structure of a document by its content type. */
public final class Structures {
  private Structures() {}

  public static StructuredText of(Document doc) {
    return switch (doc.contentType()) {
      case MARKDOWN -> MarkdownStructure.parse(doc.text());
      case HTML -> HtmlStructure.parse(doc.text());
      case TEXT -> new StructuredText(doc.text(),
          doc.text().isEmpty() ? List.of() : List.of(new Block(Block.Kind.TEXT, 0, doc.text().length(), "", 0)));
    };
  }
}
