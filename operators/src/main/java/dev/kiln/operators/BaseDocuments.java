package dev.kiln.operators;

import dev.kiln.index.DocFingerprintFile;
import dev.kiln.index.DocFingerprints;
import dev.kiln.ingest.RecordParser;
import dev.kiln.model.Document;
import dev.kiln.model.DocumentFingerprint;
import dev.kiln.model.RawRecord;
import dev.kiln.operators.fs.RemoteBaseFiles;
import dev.kiln.route.ShardRouter;
import dev.kiln.snapshot.LocalFiles;
import dev.kiln.snapshot.SnapshotLayout;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The documents of an incremental build's base snapshot, as the parse stage sees them: their
 * fingerprints, looked up when a parse subtask meets its first record (a subtask that parses nothing,
 * as when the corpus files left to read are fewer than the subtasks, never opens them). A parsed
 * document whose fingerprint is its shard's is unchanged, and travels on as its id alone.
 *
 * <p>A base whose every shard has its fingerprint file ({@link DocFingerprintFile}) is looked up there,
 * memory-mapped, in the shard the document's id routes to ({@link ShardRouter}): nothing on the heap.
 * An older base is read from its shards' doc values onto the heap and sorted (16 bytes a document: 16 MB
 * a million, per subtask). On a remote snapshots root each parse subtask downloads the shards'
 * fingerprint files alone ({@link RemoteBaseFiles#fetchShardFile}, verified against the base manifest),
 * maps them and deletes them: the mapping keeps their pages, and nothing is left on the disk.
 */
public final class BaseDocuments implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(BaseDocuments.class);

  private final String baseId;
  private final List<String> shardDirs;
  private final String settings;
  /** The base's files on a remote root (its fingerprint files come from there), or {@code null}. */
  private final RemoteBaseFiles remote;
  private final int shards;
  private transient DocFingerprints fingerprints;
  /** Each shard's fingerprint file, by shard; or null (an older base: {@link #fingerprints}). */
  private transient DocFingerprintFile[] shardFiles;

  /**
   * @param shardDirs the base's shard directories on a disk every parse subtask reads
   * @param settings the build-settings fingerprint every document fingerprint starts with
   */
  public BaseDocuments(String baseId, List<String> shardDirs, String settings) {
    this(baseId, shardDirs, settings, null, shardDirs.size());
  }

  private BaseDocuments(String baseId, List<String> shardDirs, String settings, RemoteBaseFiles remote, int shards) {
    this.baseId = baseId;
    this.shardDirs = List.copyOf(shardDirs);
    this.settings = settings;
    this.remote = remote;
    this.shards = shards;
  }

  /**
   * A base on a remote snapshots root, every shard of which lists its fingerprint file ({@link
   * RemoteBaseFiles#everyShardHas}).
   */
  public static BaseDocuments remote(RemoteBaseFiles files, int shards, String settings) {
    if (!files.everyShardHas(DocFingerprintFile.NAME)) {
      throw new IllegalArgumentException("base snapshot " + files.baseId() + " has shards without "
          + DocFingerprintFile.NAME);
    }
    return new BaseDocuments(files.baseId(), List.of(), settings, files, shards);
  }

  public String baseId() {
    return baseId;
  }

  /** The base's shard directories, by shard. */
  List<String> shardDirs() {
    return shardDirs;
  }

  private void load() {
    long start = System.nanoTime();
    long size = 0;
    try {
      if (remote != null) {
        shardFiles = download();
      } else {
        List<Path> dirs = shardDirs.stream().map(Path::of).toList();
        if (dirs.stream().allMatch(DocFingerprintFile::present)) {
          DocFingerprintFile[] files = new DocFingerprintFile[dirs.size()];
          for (int i = 0; i < files.length; i++) {
            files[i] = DocFingerprintFile.open(dirs.get(i));
          }
          shardFiles = files;
        } else {
          fingerprints = DocFingerprints.read(dirs);
          size = fingerprints.size();
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the document fingerprints of base snapshot " + baseId, e);
    }
    if (shardFiles != null) {
      for (DocFingerprintFile f : shardFiles) {
        size += f.size();
      }
    }
    LOG.info("incremental build over {}: {} document fingerprints {} in {} ms", baseId, size,
        remote != null ? "downloaded and mapped from the shards' files"
            : shardFiles != null ? "mapped from the shards' files" : "read from the shards' doc values",
        (System.nanoTime() - start) / 1_000_000);
  }

  /**
   * Each remote shard's fingerprint file, downloaded, verified, mapped, then deleted from the disk (the
   * mapping keeps the pages on POSIX systems; where a mapped file cannot be deleted, it is left in the
   * temporary directory, named in the log).
   */
  private DocFingerprintFile[] download() throws IOException {
    Path tmp = Files.createTempDirectory("kiln-base-fingerprints-");
    DocFingerprintFile[] files = new DocFingerprintFile[shards];
    try {
      for (int s = 0; s < shards; s++) {
        Path dir = tmp.resolve(SnapshotLayout.shardDirName(s));
        remote.fetchShardFile(s, DocFingerprintFile.NAME, dir);
        files[s] = DocFingerprintFile.open(dir);
      }
    } finally {
      LocalFiles.deleteTree(tmp,
          (p, e) -> LOG.warn("incremental build over {}: cannot remove {} ({})", baseId, p, e.toString()));
    }
    return files;
  }

  /** Whether the base holds document {@code id} with fingerprint {@code fp}. */
  private boolean contains(String id, byte[] fp) {
    if (shardFiles == null && fingerprints == null) {
      load();
    }
    if (shardFiles != null) {
      return shardFiles[ShardRouter.shardOf(id, shards)].contains(fp);
    }
    return fingerprints.contains(fp);
  }

  boolean unchanged(Document doc) {
    return contains(doc.id(), DocumentFingerprint.of(doc, settings));
  }

  /**
   * Whether a raw record is an unchanged document, decided without parsing it where the parser can
   * fingerprint it as it is ({@link RecordParser#fingerprint}): {@code TRUE} or {@code FALSE}, else
   * {@code null} (parse it, then ask {@link #unchanged(Document)}).
   */
  Boolean unchanged(RecordParser parser, RawRecord raw) {
    byte[] fp = parser.fingerprint(raw, settings);
    return fp == null ? null : contains(parser.idOrNull(raw.row()), fp);
  }
}
