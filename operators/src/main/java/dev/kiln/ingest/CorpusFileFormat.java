package dev.kiln.ingest;

import dev.kiln.operators.types.KilnTypeInfo;
import dev.kiln.config.IngestConfig;
import dev.kiln.model.InputFormat;
import dev.kiln.model.RawRecord;
import java.io.IOException;
import java.io.InputStream;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.src.FileSourceSplit;
import org.apache.flink.connector.file.src.reader.BulkFormat;
import org.apache.flink.core.fs.Path;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads corpus files of any Flink file system into {@link RawRecord}s, choosing one reader per format:
 * {@link JsonLinesReader} (one record per line), {@link WholeFileReader} (Markdown, plain text, HTML:
 * one per file), {@link ParquetRowReader} (one per row), {@link DocumentFileReader} (PDF, DOCX, PPTX:
 * one per file, its text extracted). A {@link BulkFormat} because readers need the file's
 * path (document ids of file-per-document formats are paths relative to the corpus root). Uncompressed
 * JSON lines and Parquet files arrive split by {@link CorpusFileEnumerator}; every other file whole.
 * Decoding problems become records with a {@code problem}, so the parse stage can quarantine them
 * instead of failing the read: so do paths the listing could not use ({@code unreadable_path}) and
 * damaged compressed streams ({@code truncated_compressed}). A gzipped Parquet file is decompressed to a
 * local spool ({@link LocalCopy}) and read from there.
 */
public final class CorpusFileFormat implements BulkFormat<RawRecord, FileSourceSplit> {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(CorpusFileFormat.class);

  private final InputFormat format;
  private final int maxRecordBytes;
  private final long maxSpoolBytes;
  private final String vectorField;
  private final String textField;

  public CorpusFileFormat(InputFormat format) {
    this(format, 16 << 20);
  }

  /** @param maxRecordBytes records larger than this are quarantined as {@code too_large} unread */
  public CorpusFileFormat(InputFormat format, long maxRecordBytes) {
    this(format, maxRecordBytes, new IngestConfig().maxSpoolBytes);
  }

  /**
   * @param maxRecordBytes records (for PDF and Office files: their extracted text) larger than this are
   *     quarantined as {@code too_large}
   * @param maxSpoolBytes the largest local copy made of a PDF or Office file that is compressed or remote
   */
  public CorpusFileFormat(InputFormat format, long maxRecordBytes, long maxSpoolBytes) {
    this(format, maxRecordBytes, maxSpoolBytes, null);
  }

  /**
   * @param vectorField the column Parquet readers decode straight into floats ({@code ingest.vector-field})
   *     instead of rendering it into the row's JSON, or {@code null}
   */
  public CorpusFileFormat(InputFormat format, long maxRecordBytes, long maxSpoolBytes, String vectorField) {
    this(format, maxRecordBytes, maxSpoolBytes, vectorField, null);
  }

  /**
   * @param textField the top-level string column Parquet readers keep as UTF-8 until asked for its text
   *     ({@code ingest.text-field}: {@link Utf8Text}), or {@code null}
   */
  public CorpusFileFormat(InputFormat format, long maxRecordBytes, long maxSpoolBytes, String vectorField,
      String textField) {
    this.textField = textField;
    this.format = format;
    this.maxRecordBytes = (int) Math.min(Integer.MAX_VALUE - 16, maxRecordBytes);
    this.maxSpoolBytes = maxSpoolBytes;
    this.vectorField = vectorField;
  }

  /** The format a file is read as, or {@code null} to skip it. */
  InputFormat formatOf(Path path) {
    return format == InputFormat.AUTO ? InputFormat.forFileName(path.getName()) : format;
  }

  /** Whether a file may be cut into byte ranges read by different readers. */
  boolean isSplittable(Path path) {
    InputFormat f = formatOf(path);
    return (f == InputFormat.JSONL || f == InputFormat.PARQUET) && !InputFormat.isGzip(path.getName());
  }

  @Override
  public Reader<RawRecord> createReader(Configuration config, FileSourceSplit split) throws IOException {
    Path path = split.path();
    String uri = path.toString();
    if (CorpusFileEnumerator.isUnreadable(split)) {
      return new SingleRecordReader(new RawRecord(uri, 0, format, CorpusFileEnumerator.diagnose(path),
          QuarantineReason.UNREADABLE_PATH).withSource(0, 0));
    }
    InputFormat fileFormat = formatOf(path);
    if (fileFormat == null) {
      LOG.info("skipping {}: not a corpus file extension (use --format to force one)", path);
      return new RecordBatches.Empty();
    }
    long start = split.offset();
    long end = start + split.length();
    long modified = split.fileModificationTime();
    if (fileFormat == InputFormat.PARQUET) {
      return parquet(uri, path, split, start, end, modified);
    }
    if (fileFormat.isExtracted()) {
      return new DocumentFileReader(path, fileFormat, modified, split.fileSize(), maxRecordBytes, maxSpoolBytes);
    }
    InputStream in;
    try {
      in = SourceStreams.open(path, fileFormat == InputFormat.JSONL ? Math.max(0, start - 1) : 0);
    } catch (IOException e) {
      // Gone or unreadable since it was listed, or a .gz without a gzip header: one record, from the
      // split at offset 0 only, so a file cut into ranges is reported once.
      String reason = e instanceof SourceStreams.DamagedStreamException
          ? QuarantineReason.TRUNCATED_COMPRESSED : QuarantineReason.UNREADABLE_PATH;
      RawRecord bad = new RawRecord(uri, 0, fileFormat, uri + ": " + e, reason).withSource(split.fileSize(), modified);
      return start == 0 ? new SingleRecordReader(bad) : new RecordBatches.Empty();
    }
    return switch (fileFormat) {
      case JSONL -> new JsonLinesReader(uri, in, start, InputFormat.isGzip(path.getName()) ? Long.MAX_VALUE : end,
          modified, maxRecordBytes);
      case MARKDOWN, TEXT, HTML -> new WholeFileReader(uri, fileFormat, in, modified, split.fileSize(), maxRecordBytes);
      default -> {
        in.close();
        throw new IllegalStateException("no reader for " + fileFormat);
      }
    };
  }

  private Reader<RawRecord> parquet(String uri, Path path, FileSourceSplit split, long start, long end,
      long modified) throws IOException {
    // Parquet is read by random access from its footer: a .gz is first decompressed to a local spool of at
    // most ingest.max-spool-bytes (as PDF and Office files are) and read whole, since it is never split.
    LocalCopy spool = null;
    FlinkInputFile file = new FlinkInputFile(path, split.fileSize());
    if (InputFormat.isGzip(path.getName())) {
      try {
        spool = LocalCopy.of(path, maxSpoolBytes);
      } catch (MalformedRecordException e) {
        return new SingleRecordReader(new RawRecord(uri, 0, InputFormat.PARQUET, uri + ": " + e.getMessage(),
            e.reason()).withSource(split.fileSize(), modified));
      }
      file = new FlinkInputFile(Path.fromLocalFile(spool.file()), spool.file().length());
      end = Long.MAX_VALUE; // the split's range is the compressed file's; the row groups are past it
    }
    ParquetFileReader reader;
    try {
      // Page checksums (written by default since Parquet 1.12) turn a corrupt page into an unreadable
      // row group instead of garbage text that would be indexed as if it were the document.
      reader = ParquetFileReader.open(file, ParquetReadOptions.builder().usePageChecksumVerification(true).build());
    } catch (IOException | RuntimeException e) {
      if (spool != null) {
        spool.close();
      }
      // A broken footer makes the whole file unreadable; report it once, from the split at offset 0.
      RawRecord bad = new RawRecord(uri, 0, InputFormat.PARQUET, String.valueOf(e.getMessage()),
          QuarantineReason.UNREADABLE_FILE).withSource(split.fileSize(), modified);
      return start == 0 ? new SingleRecordReader(bad) : new RecordBatches.Empty();
    }
    ParquetRowReader rows = new ParquetRowReader(uri, reader, start, end, modified, vectorField, textField,
        maxRecordBytes);
    if (spool == null) {
      return rows;
    }
    LocalCopy copy = spool;
    return new Reader<>() { // the rows, then the spool deleted once they are closed
      @Override
      public RecordIterator<RawRecord> readBatch() throws IOException {
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

  @Override
  public Reader<RawRecord> restoreReader(Configuration config, FileSourceSplit split) throws IOException {
    // Kiln builds are batch jobs: a failed region re-reads its whole split, so there is no position to restore.
    return createReader(config, split);
  }

  @Override
  public boolean isSplittable() {
    // Splitting is decided per file by CorpusFileEnumerator; Flink's block splitter must not cut files.
    return false;
  }

  @Override
  public TypeInformation<RawRecord> getProducedType() {
    return KilnTypeInfo.RAW_RECORD;
  }

  private static final class SingleRecordReader implements Reader<RawRecord> {
    private RawRecord record;

    SingleRecordReader(RawRecord record) {
      this.record = record;
    }

    @Override
    public RecordIterator<RawRecord> readBatch() {
      RecordIterator<RawRecord> it = record == null ? null : RecordBatches.of(java.util.List.of(record));
      record = null;
      return it;
    }

    @Override
    public void close() {}
  }
}
