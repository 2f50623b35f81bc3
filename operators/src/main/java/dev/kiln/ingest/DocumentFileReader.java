package dev.kiln.ingest;

import dev.kiln.model.InputFormat;
import dev.kiln.model.RawRecord;
import java.io.IOException;
import java.util.List;
import org.apache.flink.connector.file.src.reader.BulkFormat;
import org.apache.flink.core.fs.Path;

/**
 * A PDF, DOCX or PPTX file (or its {@code .gz}) is one record: its extracted text as an {@link
 * ExtractedDocument} payload, by the {@link DocumentReader} of its format. The file is read from local
 * disk ({@link LocalCopy}); a document that cannot be read becomes one record with its quarantine
 * reason ({@code encrypted}, {@code no_text_layer}, {@code corrupt_document}, {@code too_large}, …).
 */
final class DocumentFileReader implements BulkFormat.Reader<RawRecord> {
  private final String uri;
  private final Path path;
  private final InputFormat format;
  private final long modified;
  private final long fileSize;
  private final long maxTextChars;
  private final long maxSpoolBytes;
  private boolean done;

  DocumentFileReader(Path path, InputFormat format, long modified, long fileSize, long maxTextChars,
      long maxSpoolBytes) {
    this.uri = path.toString();
    this.path = path;
    this.format = format;
    this.modified = modified;
    this.fileSize = fileSize;
    this.maxTextChars = maxTextChars;
    this.maxSpoolBytes = maxSpoolBytes;
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
  public BulkFormat.RecordIterator<RawRecord> readBatch() throws IOException {
    if (done) {
      return null;
    }
    done = true;
    RawRecord record;
    try (LocalCopy local = LocalCopy.of(path, maxSpoolBytes)) {
      ExtractedDocument doc = new ExtractedDocument(maxTextChars);
      readerFor(format).read(local.file(), doc);
      record = RawRecord.of(uri, 0, format, doc.toPayload());
    } catch (MalformedRecordException e) {
      record = new RawRecord(uri, 0, format, uri + ": " + e.getMessage(), e.reason());
    }
    return RecordBatches.of(List.of(record.withSource(fileSize, modified)));
  }

  @Override
  public void close() {}
}
