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
 */
public record ReadOptions(int maxRecordBytes, long maxSpoolBytes, String vectorField, String textField)
    implements Serializable {
  /** A record limit beyond what one array can hold is held at the largest that can. */
  public ReadOptions(long maxRecordBytes, long maxSpoolBytes, String vectorField, String textField) {
    this((int) Math.min(Integer.MAX_VALUE - 16, maxRecordBytes), maxSpoolBytes, vectorField, textField);
  }

  /** A record limit and the default of every other setting. */
  public static ReadOptions withMaxRecordBytes(long maxRecordBytes) {
    return new ReadOptions(maxRecordBytes, new IngestConfig().maxSpoolBytes, null, null);
  }
}
