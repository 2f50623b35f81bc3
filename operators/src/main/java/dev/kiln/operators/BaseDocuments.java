package dev.kiln.operators;

import dev.kiln.index.DocFingerprints;
import dev.kiln.ingest.RecordParser;
import dev.kiln.model.Document;
import dev.kiln.model.DocumentFingerprint;
import dev.kiln.model.RawRecord;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The documents of an incremental build's base snapshot, as the parse stage sees them: the set of
 * their fingerprints, read from the base shards' doc values when a parse subtask meets its first
 * record (16 bytes a document: 16 MB a million, per subtask; a subtask that parses nothing, as when
 * the corpus files left to read are fewer than the subtasks, never reads them). A parsed document
 * whose fingerprint is in the set is unchanged, and travels on as its id alone.
 */
public final class BaseDocuments implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(BaseDocuments.class);

  private final String baseId;
  private final List<String> shardDirs;
  private final String settings;
  private transient DocFingerprints fingerprints;

  /**
   * @param shardDirs the base's shard directories on a disk every parse subtask reads
   * @param settings the build-settings fingerprint every document fingerprint starts with
   */
  public BaseDocuments(String baseId, List<String> shardDirs, String settings) {
    this.baseId = baseId;
    this.shardDirs = List.copyOf(shardDirs);
    this.settings = settings;
  }

  public String baseId() {
    return baseId;
  }

  private DocFingerprints fingerprints() {
    if (fingerprints == null) {
      load();
    }
    return fingerprints;
  }

  private void load() {
    long start = System.nanoTime();
    try {
      fingerprints = DocFingerprints.read(shardDirs.stream().map(Path::of).toList());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the document fingerprints of base snapshot " + baseId, e);
    }
    LOG.info("incremental build over {}: {} document fingerprints read in {} ms", baseId, fingerprints.size(),
        (System.nanoTime() - start) / 1_000_000);
  }

  boolean unchanged(Document doc) {
    return fingerprints().contains(DocumentFingerprint.of(doc, settings));
  }

  /**
   * Whether a raw record is an unchanged document, decided without parsing it where the parser can
   * fingerprint it as it is ({@link RecordParser#fingerprint}): {@code TRUE} or {@code FALSE}, else
   * {@code null} (parse it, then ask {@link #unchanged(Document)}).
   */
  Boolean unchanged(RecordParser parser, RawRecord raw) {
    byte[] fp = parser.fingerprint(raw, settings);
    return fp == null ? null : fingerprints().contains(fp);
  }
}
