package dev.kiln.ingest;

import dev.kiln.config.IngestConfig;
import dev.kiln.model.InputFormat;
import dev.kiln.model.RawRecord;
import dev.kiln.operators.types.KilnTypeInfo;
import java.io.IOException;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.src.FileSourceSplit;
import org.apache.flink.connector.file.src.reader.BulkFormat;
import org.apache.flink.core.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Flink's file source format for corpus files of any Flink file system: each split's file is read by the
 * reader of its format, opened by {@link CorpusReaders} in the {@code ingest} module ({@link
 * JsonLinesReader}, {@link WholeFileReader}, {@link ParquetRowReader}, {@link DocumentFileReader}), over
 * the split's file as a {@link FlinkSourceFile}, its batches handed to Flink by {@link FlinkBatchReader}.
 * A {@link BulkFormat} because readers need the file's path (document ids of file-per-document formats
 * are paths relative to the corpus root). Uncompressed JSON lines and Parquet files arrive split by
 * {@link CorpusFileEnumerator}; every other file whole. Paths the listing could not use become one
 * {@code unreadable_path} record each, so the parse stage quarantines them instead of failing the read.
 */
public final class CorpusFileFormat implements BulkFormat<RawRecord, FileSourceSplit> {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(CorpusFileFormat.class);

  private final InputFormat format;
  private final ReadOptions options;

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
    this(format, new ReadOptions(maxRecordBytes, maxSpoolBytes, vectorField, textField));
  }

  /** @param options every reader setting, as a build's {@code ingest} section gives them ({@link ReadOptions#of}) */
  public CorpusFileFormat(InputFormat format, ReadOptions options) {
    this.format = format;
    this.options = options;
  }

  /** The format a file is read as, or {@code null} to skip it. */
  InputFormat formatOf(Path path) {
    return CorpusReaders.formatOf(format, path.getName());
  }

  /** Whether a file may be cut into byte ranges read by different readers. */
  boolean isSplittable(Path path) {
    return CorpusReaders.isSplittable(formatOf(path), path.getName());
  }

  @Override
  public Reader<RawRecord> createReader(Configuration config, FileSourceSplit split) throws IOException {
    Path path = split.path();
    if (CorpusFileEnumerator.isUnreadable(split)) {
      return new FlinkBatchReader(BatchReader.of(new RawRecord(path.toString(), 0, format,
          CorpusFileEnumerator.diagnose(path), QuarantineReason.UNREADABLE_PATH).withSource(0, 0)));
    }
    InputFormat fileFormat = formatOf(path);
    if (fileFormat == null) {
      LOG.info("skipping {}: not a corpus file extension (use --format to force one)", path);
      return new FlinkBatchReader(BatchReader.empty());
    }
    long start = split.offset();
    return new FlinkBatchReader(CorpusReaders.open(new FlinkSourceFile(split), fileFormat, start,
        start + split.length(), options));
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
}
