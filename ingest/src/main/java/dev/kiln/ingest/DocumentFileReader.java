package dev.kiln.ingest;

import dev.kiln.model.InputFormat;
import dev.kiln.model.RawRecord;
import java.io.IOException;
import java.util.List;

/**
 * A PDF, DOCX or PPTX file (or its {@code .gz}) is one record: its extracted text as an {@link
 * ExtractedDocument} payload, by the {@link DocumentReader} of its format. The file is read from local
 * disk ({@link LocalCopy}); a document that cannot be read becomes one record with its quarantine
 * reason ({@code encrypted}, {@code no_text_layer}, {@code corrupt_document}, {@code too_large}, {@code
 * too_costly}, …). Extraction starts its deadline ({@code ingest.max-document-millis}) once the local
 * copy is made.
 */
final class DocumentFileReader implements BatchReader {
  private final String uri;
  private final SourceFile file;
  private final InputFormat format;
  private final long modified;
  private final long fileSize;
  private final long maxTextChars;
  private final long maxSpoolBytes;
  private final long maxMillis;
  private boolean done;

  DocumentFileReader(SourceFile file, InputFormat format, ReadOptions options) {
    this.uri = file.uri();
    this.file = file;
    this.format = format;
    this.modified = file.modified();
    this.fileSize = file.size();
    this.maxTextChars = options.maxRecordBytes();
    this.maxSpoolBytes = options.maxSpoolBytes();
    this.maxMillis = options.maxDocumentMillis();
  }

  static DocumentReader readerFor(InputFormat format) {
    return switch (format) {
      case PDF -> new PdfReader();
      case DOCX -> new DocxReader();
      case PPTX -> new PptxReader();
      default -> throw new IllegalArgumentException("not an extracted format: " + format);
    };
  }

  @Override
  public List<RawRecord> readBatch() throws IOException {
    if (done) {
      return List.of();
    }
    done = true;
    RawRecord record;
    try (LocalCopy local = LocalCopy.of(file, maxSpoolBytes)) {
      ExtractedDocument doc = new ExtractedDocument(maxTextChars, maxMillis);
      readerFor(format).read(local.file(), doc);
      record = RawRecord.of(uri, 0, format, doc.toPayload());
    } catch (MalformedRecordException e) {
      record = new RawRecord(uri, 0, format, uri + ": " + e.getMessage(), e.reason());
    }
    return List.of(record.withSource(fileSize, modified));
  }

  @Override
  public void close() {}
}
