package dev.kiln.ingest;

import dev.kiln.config.IngestConfig;
import java.io.Serializable;

/**
 * What the readers are told besides the file: the {@code ingest.*} settings that shape a record.
 *
 * @param maxRecordBytes records (for PDF and Office files: their extracted text) larger than this are
 *     quarantined as {@code too_large}
 * @param maxSpoolBytes the largest local copy made of a PDF or Office file that is compressed or remote
 * @param vectorField the column Parquet readers decode straight into floats ({@code ingest.vector-field})
 *     instead of rendering it into the row's JSON, or {@code null}
 * @param textField the top-level string column Parquet readers keep as UTF-8 until asked for its text
 *     ({@code ingest.text-field}: {@link Utf8Text}), or {@code null}
 * @param maxDocumentMillis how long extracting one PDF or Office file may take; longer is {@code
 *     too_costly} ({@code ingest.max-document-millis})
 */
public record ReadOptions(int maxRecordBytes, long maxSpoolBytes, String vectorField, String textField,
    long maxDocumentMillis) implements Serializable {
  /** A record limit beyond what one array can hold is held at the largest that can. */
  public ReadOptions(long maxRecordBytes, long maxSpoolBytes, String vectorField, String textField,
      long maxDocumentMillis) {
    this((int) Math.min(Integer.MAX_VALUE - 16, maxRecordBytes), maxSpoolBytes, vectorField, textField,
        maxDocumentMillis);
  }

  /** These settings and the default document deadline. */
  public ReadOptions(long maxRecordBytes, long maxSpoolBytes, String vectorField, String textField) {
    this(maxRecordBytes, maxSpoolBytes, vectorField, textField, new IngestConfig().maxDocumentMillis);
  }

  /** A record limit and the default of every other setting. */
  public static ReadOptions withMaxRecordBytes(long maxRecordBytes) {
    return new ReadOptions(maxRecordBytes, new IngestConfig().maxSpoolBytes, null, null);
  }

  /** The settings of a build's {@code ingest} section. */
  public static ReadOptions of(IngestConfig ingest) {
    return new ReadOptions(ingest.maxRecordBytes, ingest.maxSpoolBytes, ingest.vectorField, ingest.textField,
        ingest.maxDocumentMillis);
  }
}
