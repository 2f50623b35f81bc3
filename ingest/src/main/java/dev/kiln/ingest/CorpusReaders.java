package dev.kiln.ingest;

import dev.kiln.model.InputFormat;
import dev.kiln.model.RawRecord;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.InputFile;

/**
 * Opens the reader of a corpus file's format: {@link JsonLinesReader} (one record per line), {@link
 * WholeFileReader} (Markdown, plain text, HTML: one per file), {@link ParquetRowReader} (one per row),
 * {@link DocumentFileReader} (PDF, DOCX, PPTX: one per file, its text extracted). Uncompressed JSON
 * lines and Parquet files may be read in byte ranges, each by its own reader; every other file whole.
 * Decoding problems become records with a {@code problem}, so the parse stage can quarantine them
 * instead of failing the read: so do files gone or unreadable since they were listed ({@code
 * unreadable_path}), damaged compressed streams ({@code truncated_compressed}) and Parquet files without
 * a readable footer ({@code unreadable_file}).
 */
public final class CorpusReaders {
  private CorpusReaders() {}

  /** The format a file is read as under the configured one ({@code AUTO}: by its name), or {@code null} to skip it. */
  public static InputFormat formatOf(InputFormat configured, String fileName) {
    return configured == InputFormat.AUTO ? InputFormat.forFileName(fileName) : configured;
  }

  /** Whether a file of this format and name may be cut into byte ranges read by different readers. */
  public static boolean isSplittable(InputFormat format, String fileName) {
    return (format == InputFormat.JSONL || format == InputFormat.PARQUET) && !InputFormat.isGzip(fileName);
  }

  /**
   * The reader of the records of {@code file} that start in {@code [start, end)}: the lines that begin
   * there, the row groups that start there (a whole file: {@code [0, size)}).
   */
  public static BatchReader open(SourceFile file, InputFormat format, long start, long end, ReadOptions options)
      throws IOException {
    String uri = file.uri();
    if (format == InputFormat.PARQUET) {
      return parquet(file, start, end, options);
    }
    if (format.isExtracted()) {
      return new DocumentFileReader(file, format, options);
    }
    InputStream in;
    try {
      in = SourceStreams.open(file, format == InputFormat.JSONL ? Math.max(0, start - 1) : 0);
    } catch (IOException e) {
      // Gone or unreadable since it was listed, or a .gz without a gzip header: one record, from the
      // range at offset 0 only, so a file cut into ranges is reported once.
      String reason = e instanceof SourceStreams.DamagedStreamException
          ? QuarantineReason.TRUNCATED_COMPRESSED : QuarantineReason.UNREADABLE_PATH;
      RawRecord bad = new RawRecord(uri, 0, format, uri + ": " + e, reason).withSource(file.size(), file.modified());
      return start == 0 ? BatchReader.of(bad) : BatchReader.empty();
    }
    return switch (format) {
      case JSONL -> new JsonLinesReader(uri, in, start, InputFormat.isGzip(file.name()) ? Long.MAX_VALUE : end,
          file.modified(), options.maxRecordBytes());
      case MARKDOWN, TEXT, HTML -> new WholeFileReader(uri, format, in, file.modified(), file.size(),
          options.maxRecordBytes());
      default -> {
        in.close();
        throw new IllegalStateException("no reader for " + format);
      }
    };
  }

  private static BatchReader parquet(SourceFile file, long start, long end, ReadOptions options) throws IOException {
    // Parquet is read by random access from its footer: a .gz is first decompressed to a local spool of
    // at most ingest.max-spool-bytes (as PDF and Office files are) and read whole, since it is never split.
    LocalCopy spool = null;
    InputFile input;
    if (InputFormat.isGzip(file.name())) {
      try {
        spool = LocalCopy.of(file, options.maxSpoolBytes());
      } catch (MalformedRecordException e) {
        return BatchReader.of(new RawRecord(file.uri(), 0, InputFormat.PARQUET, file.uri() + ": " + e.getMessage(),
            e.reason()).withSource(file.size(), file.modified()));
      }
      input = new LocalSourceFile(spool.file().toPath()).parquetFile();
      end = Long.MAX_VALUE; // the range is the compressed file's; the row groups lie past it
    } else {
      input = file.parquetFile();
    }
    ParquetFileReader reader;
    try {
      // Page checksums (written by default since Parquet 1.12) turn a corrupt page into an unreadable
      // row group instead of garbage text that would be indexed as if it were the document.
      reader = ParquetFileReader.open(input, ParquetReadOptions.builder().usePageChecksumVerification(true).build());
    } catch (IOException | RuntimeException e) {
      if (spool != null) {
        spool.close();
      }
      // A broken footer makes the whole file unreadable; report it once, from the range at offset 0.
      RawRecord bad = new RawRecord(file.uri(), 0, InputFormat.PARQUET, String.valueOf(e.getMessage()),
          QuarantineReason.UNREADABLE_FILE).withSource(file.size(), file.modified());
      return start == 0 ? BatchReader.of(bad) : BatchReader.empty();
    }
    ParquetRowReader rows = new ParquetRowReader(file.uri(), reader, start, end, file.modified(),
        options.vectorField(), options.textField(), options.maxRecordBytes());
    if (spool == null) {
      return rows;
    }
    LocalCopy copy = spool;
    return new BatchReader() { // the rows, then the spool deleted once they are closed
      @Override
      public List<RawRecord> readBatch() throws IOException {
        return rows.readBatch();
      }

      @Override
      public void close() throws IOException {
        try (copy) {
          rows.close();
        }
      }
    };
  }
}
