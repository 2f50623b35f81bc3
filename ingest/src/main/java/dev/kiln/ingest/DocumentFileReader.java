package dev.kiln.ingest;

import dev.kiln.model.InputFormat;
import dev.kiln.model.RawRecord;
import java.io.File;
import java.io.IOException;
import java.util.List;

/**
 * A PDF, DOCX or PPTX file (or its {@code .gz}) is one record: its extracted text as an {@link
 * ExtractedDocument} payload, by the {@link DocumentReader} of its format. The file is read from local
 * disk ({@link LocalCopy}); a document that cannot be read becomes one record with its quarantine
 * reason ({@code encrypted}, {@code no_text_layer}, {@code corrupt_document}, {@code too_large}, {@code
 * too_costly}, …). Extraction starts its deadline ({@code ingest.max-document-millis}) once the local
 * copy is made.
 *
 * <p>The readers bound what a document may cost, but a parser library can still exhaust the heap or the
 * stack on a file no check foresaw: an {@link OutOfMemoryError} or {@link StackOverflowError} thrown
 * while one document is parsed is caught around that parse alone and quarantines the document ({@code
 * too_large}, {@code corrupt_document}) instead of failing the task. What the parse held is garbage by
 * then (nothing outside it refers to it), so the task goes on with the heap it had. Any other error, and
 * these two outside the parse, still fail the task.
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
  private final DocumentReader reader;
  private boolean done;

  DocumentFileReader(SourceFile file, InputFormat format, ReadOptions options) {
    this(file, format, options, readerFor(format));
  }

  /** With the given extraction reader (tests: one that fails as a parser library can). */
  DocumentFileReader(SourceFile file, InputFormat format, ReadOptions options, DocumentReader reader) {
    this.reader = reader;
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
      record = RawRecord.of(uri, 0, format, extract(local.file()));
    } catch (MalformedRecordException e) {
      record = new RawRecord(uri, 0, format, uri + ": " + e.getMessage(), e.reason());
    }
    return List.of(record.withSource(fileSize, modified));
  }

  /** The document's payload; the parse alone is where a library's exhausted heap or stack is caught. */
  private String extract(File local) throws MalformedRecordException, IOException {
    try {
      ExtractedDocument doc = new ExtractedDocument(maxTextChars, maxMillis);
      reader.read(local, doc);
      return doc.toPayload();
    } catch (OutOfMemoryError e) {
      throw new MalformedRecordException(QuarantineReason.TOO_LARGE,
          "extracting its text ran out of memory (" + e.getMessage() + "): larger than the task's heap allows");
    } catch (StackOverflowError e) {
      throw new MalformedRecordException(QuarantineReason.CORRUPT_DOCUMENT,
          "nested too deeply to parse: extracting its text overflowed the stack");
    }
  }

  @Override
  public void close() {}
}
