package dev.kiln.config;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * How corpus records are read, which fields they are taken from, what metadata they carry, and how
 * much bad input a build tolerates before it fails.
 */
public class IngestConfig implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Records (a JSON line, a whole file, a Parquet row) larger than this are quarantined, never parsed. */
  public long maxRecordBytes = 16L << 20;
  /**
   * Uncompressed JSON-lines and Parquet files larger than this are cut into ranges of this many bytes
   * and read by several readers in parallel.
   */
  public long splitBytes = 64L << 20;
  /**
   * PDF, DOCX and PPTX files are read from a local file. Those that are not one — compressed
   * ({@code .gz}), or on a remote file system (S3, HDFS) — are first copied to a local temporary file of
   * at most this many bytes; a larger one is quarantined as {@code too_large}. Uncompressed local files
   * are read in place whatever their size. A {@code .parquet.gz} is decompressed to such a copy too.
   */
  public long maxSpoolBytes = 2L << 30;
  /**
   * How long extracting the text of one PDF, DOCX or PPTX file may take, in milliseconds; a file that
   * takes longer is quarantined as {@code too_costly} and the build goes on. Checked as the readers go
   * (between a PDF's content stream operators, every few thousand XML events of an Office part), so a
   * single step — loading a PDF, decoding one of its streams — runs to its end first.
   */
  public long maxDocumentMillis = 30_000;
  /**
   * The build fails, naming the worst sources, when quarantined records exceed this fraction of the
   * records read. 0 fails on the first bad record; 1 never fails.
   */
  public double maxBadFraction = 0.05;
  /**
   * Where quarantined records are written as JSON lines; empty means
   * {@code <snapshots>/quarantine/<snapshot id>/}. Kept outside the snapshot so that a build that
   * failed on too much bad input still leaves them for inspection.
   */
  public String quarantineDir = "";
  /** Record field (JSON key or Parquet column) holding the document id; {@code id} is tried as well. */
  public String idField = "_id";
  public String titleField = "title";
  public String textField = "text";
  /**
   * Record field holding a precomputed embedding (JSON array of numbers, Parquet list of floats),
   * made by the build's model ({@code --model}). A record that has one is indexed as one chunk and
   * never goes to the model; a bad vector quarantines the record ({@code vector_*} reasons).
   */
  public String vectorField = "vector";
  /** How far a supplied vector's length may be from 1 when the model normalises its vectors. */
  public double vectorUnitTolerance = 1e-3;
  /** Record field holding a map of further metadata (scalars only). */
  public String metadataField = "metadata";
  /**
   * Top-level record fields copied into the document's metadata: metadata key → field name. The
   * defaults pick up the common ones when they are present.
   */
  public Map<String, String> metadataFields = new LinkedHashMap<>(Map.of(
      "tenant", "tenant", "doc_type", "doc_type", "version", "version", "language", "language"));
  /**
   * Regular expressions with named groups, matched against each file's path relative to its corpus
   * root; every named group that matches becomes a metadata entry (record fields win over paths).
   * Example: {@code (?<tenant>[^/]+)/(?<doctype>[^/]+)/} — group names are letters and digits only,
   * so {@code doctype} is stored as given.
   */
  public List<String> pathPatterns = new ArrayList<>();

  void validate() {
    if (maxRecordBytes < 1) {
      throw new ConfigException("ingest.max-record-bytes must be positive, was " + maxRecordBytes);
    }
    if (maxSpoolBytes < 1) {
      throw new ConfigException("ingest.max-spool-bytes must be positive, was " + maxSpoolBytes);
    }
    if (maxDocumentMillis < 1) {
      throw new ConfigException("ingest.max-document-millis must be positive, was " + maxDocumentMillis);
    }
    if (splitBytes < 4096) {
      throw new ConfigException("ingest.split-bytes must be at least 4096, was " + splitBytes);
    }
    if (!(maxBadFraction >= 0 && maxBadFraction <= 1)) {
      throw new ConfigException("ingest.max-bad-fraction must be in 0..1, was " + maxBadFraction);
    }
    for (String f : new String[] {idField, titleField, textField, metadataField, vectorField}) {
      if (f == null || f.isBlank()) {
        throw new ConfigException(
            "ingest.id-field, title-field, text-field, metadata-field and vector-field must not be empty");
      }
    }
    if (!(vectorUnitTolerance > 0 && vectorUnitTolerance < 1)) {
      throw new ConfigException("ingest.vector-unit-tolerance must be in (0, 1), was " + vectorUnitTolerance);
    }
    for (String p : pathPatterns) {
      try {
        Pattern.compile(p);
      } catch (PatternSyntaxException e) {
        throw new ConfigException("ingest.path-patterns: invalid regular expression '" + p + "': "
            + e.getDescription());
      }
    }
  }
}
