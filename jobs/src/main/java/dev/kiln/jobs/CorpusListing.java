package dev.kiln.jobs;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.config.BuildConfig;
import dev.kiln.index.SourcePositions;
import dev.kiln.ingest.CorpusFileEnumerator;
import dev.kiln.operators.JobCounters;
import dev.kiln.snapshot.Checksums;
import dev.kiln.snapshot.CorpusFiles;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.connector.file.src.FileSourceSplit;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

/**
 * The corpus files a build sees, listed once in the client with their sizes and modification times
 * ({@code corpus-files.tsv} of the snapshot), and which of them an incremental build leaves unread: a
 * file whose URI, size and modification time equal its base's row, read under the same settings, from
 * which the base quarantined nothing (so every record of it is a live document of the base, at its
 * recorded position). The source then lists no split for it and the shard writers keep its documents
 * ({@code ContinuedShard.keepUnread}).
 *
 * <p>A file modified within {@link #RACY_MILLIS} of the listing is recorded with modification time 0,
 * which no later build trusts: a write in the same tick as the listing could leave size and time alike
 * while the bytes read differ (git's "racily clean" entries).
 *
 * @param entries every file listed, sorted by URI, each marked kept or read
 * @param settings what the rows are valid under ({@link #settings})
 * @param reason why files are (or are not) left unread, for the log and the counters table
 */
record CorpusListing(List<CorpusFiles.Entry> entries, String settings, String reason) {

  /** Modification times this close to the listing are not trusted by the next build. */
  static final long RACY_MILLIS = 2_000;

  /** Bytes of the files a build reads: every file, less the kept ones when {@code unreadKept}. */
  long bytesToRead(boolean unreadKept) {
    return entries.stream().filter(e -> !(unreadKept && e.kept())).mapToLong(CorpusFiles.Entry::size).sum();
  }

  long kept() {
    return entries.stream().filter(CorpusFiles.Entry::kept).count();
  }

  /**
   * Lists the corpus and decides, for an incremental build ({@code incremental}), which files stay
   * unread. Never fails the build for the base's listing: anything wrong with it means every file is read.
   */
  static CorpusListing plan(BuildContext ctx, SnapshotStore store, BuildMode mode) {
    BuildConfig config = ctx.config();
    String settings = settings(ctx);
    List<CorpusFiles.Entry> now = list(config);
    if (!(mode instanceof BuildMode.Incremental incremental)) {
      return new CorpusListing(now, settings, "a full build reads every file");
    }
    boolean remote = ctx.target().remote();
    String unreadable = "read".equals(config.incrementalFiles) ? "incremental-files: read"
        : baseProblem(remote, incremental);
    if (unreadable != null) {
      return new CorpusListing(now, settings, unreadable);
    }
    CorpusFiles base;
    Set<String> dirty;
    try {
      base = readBase(store, incremental.base(), incremental.baseManifest());
      dirty = quarantinedSources(incremental.baseManifest());
    } catch (IOException | RuntimeException e) {
      return new CorpusListing(now, settings, "every file is read: " + e.getMessage());
    }
    if (!settings.equals(base.settings())) {
      return new CorpusListing(now, settings, "every file is read: CURRENT " + incremental.base()
          + " read its corpus under other settings (ingest, format, model or chunker)");
    }
    // A base that recorded the count was judged by its own writers (baseProblem); an older local one is
    // looked into here.
    boolean counted = withoutPositions(incremental.baseManifest()) != null;
    String unpositioned = remote || counted ? null
        : localPositionsProblem(store, incremental, base.byUri().keySet());
    if (unpositioned != null) {
      return new CorpusListing(now, settings, unpositioned);
    }
    List<CorpusFiles.Entry> out = new ArrayList<>(now.size());
    long kept = 0;
    for (CorpusFiles.Entry e : now) {
      CorpusFiles.Entry was = base.byUri().get(e.uri());
      boolean same = was != null && e.modified() != 0 && was.modified() != 0 && was.sameStamp(e.size(), e.modified())
          && !dirty.contains(e.uri());
      kept += same ? 1 : 0;
      out.add(new CorpusFiles.Entry(e.uri(), e.size(), e.modified(), same));
    }
    return new CorpusListing(out, settings, kept + " of " + out.size() + " corpus files unchanged since CURRENT "
        + incremental.base() + " (size and modification time) are not read"
        + (dirty.isEmpty() ? "" : "; " + dirty.size() + " files with quarantined records are read again"));
  }

  /** Why no file can be left unread over this base, or {@code null}; a local base's shards are checked later. */
  private static String baseProblem(boolean remote, BuildMode.Incremental incremental) {
    Manifest m = incremental.baseManifest();
    if (m.corpusFiles() == null) {
      return "every file is read: CURRENT " + incremental.base() + " has no corpus listing (built before it existed)";
    }
    // The base's writers counted the shards whose chunks are not all positioned in files it listed,
    // or that kept a document whose record had moved to another file (ContinuedShard.pruneBase).
    Long without = withoutPositions(m);
    if (without != null) {
      return without == 0 ? null : unpositioned(incremental);
    }
    if (remote) {
      // Nor are a remote base's shards here to look into.
      return "every file is read: CURRENT " + incremental.base() + " on the remote root does not record whether"
          + " its chunks carry record positions (built before it did; the next build records it)";
    }
    return null;
  }

  private static Long withoutPositions(Manifest m) {
    return m.counters() == null ? null : m.counters().get(JobCounters.SHARDS_WITHOUT_POSITIONS);
  }

  /**
   * Why a local base's shards cannot have files left unread, or {@code null}: every live chunk must
   * record its position in a file the base listed ({@link SourcePositions#within}).
   */
  private static String localPositionsProblem(SnapshotStore store, BuildMode.Incremental incremental, Set<String> listed) {
    Manifest m = incremental.baseManifest();
    for (int shard = 0; shard < m.shards().size(); shard++) {
      try {
        if (!SourcePositions.within(store.layout().shardDir(incremental.base(), shard), listed)) {
          return unpositioned(incremental);
        }
      } catch (IOException e) {
        return "every file is read: shard " + shard + " of CURRENT cannot be read: " + e.getMessage();
      }
    }
    return null;
  }

  private static String unpositioned(BuildMode.Incremental incremental) {
    return "every file is read: CURRENT " + incremental.base() + " holds chunks without a record position in a file"
        + " it listed, or at a stale one (written before positions existed, kept from a changelog build, or kept"
        + " when their record moved to another file; the next full build sets them right)";
  }

  /** The base's listing, read through the root's storage and checked against its manifest's size and SHA-256. */
  private static CorpusFiles readBase(SnapshotStore store, String base, Manifest m) throws IOException {
    Manifest.CorpusFilesEntry entry = m.corpusFiles();
    String key = SnapshotLayout.snapshotKey(base) + SnapshotLayout.CORPUS_FILES;
    byte[] bytes;
    try (InputStream in = store.storage().open(key)) {
      // One byte past the recorded size tells a longer object from a matching one without reading it whole.
      bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, entry.size() + 1));
    }
    if (bytes.length != entry.size() || !Checksums.sha256(bytes).equals(entry.sha256())) {
      throw new IOException("the corpus listing of CURRENT " + base + " does not match its manifest");
    }
    return CorpusFiles.read(new ByteArrayInputStream(bytes));
  }

  /**
   * The files the base quarantined records of: read again, so that their bad records are quarantined
   * again and a record that lost to a duplicate id can win once the winner is gone.
   */
  static Set<String> quarantinedSources(Manifest base) throws IOException {
    Set<String> sources = new HashSet<>();
    Manifest.QuarantineInfo q = base.quarantine();
    if (q == null || q.total() == 0) {
      return sources;
    }
    if (q.location() == null) {
      throw new IOException("CURRENT quarantined " + q.total() + " records and names no quarantine output");
    }
    Path dir = new Path(q.location());
    FileSystem fs = dir.getFileSystem();
    FileStatus[] parts = fs.listStatus(dir);
    if (parts == null) {
      throw new IOException("the quarantine output of CURRENT is gone: " + q.location());
    }
    long records = 0;
    for (FileStatus part : parts) {
      if (part.isDir() || !part.getPath().getName().endsWith(".jsonl")) {
        continue;
      }
      try (InputStream in = fs.open(part.getPath());
          BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
          if (line.isBlank()) {
            continue;
          }
          JsonNode record;
          try {
            record = SnapshotStore.json().readTree(line);
          } catch (JsonProcessingException e) {
            throw new IOException("the quarantine output of CURRENT has an unreadable line in " + part.getPath(), e);
          }
          sources.add(record.path("source_uri").asText(""));
          records++;
        }
      }
    }
    if (records < q.total()) {
      throw new IOException("the quarantine output of CURRENT holds " + records + " of its " + q.total() + " records");
    }
    return sources;
  }

  /**
   * Every corpus file as the build's source lists it (the same enumerator, so URIs match the readers'),
   * once each, without the paths it cannot list (those are quarantined as the source reads them).
   */
  static List<CorpusFiles.Entry> list(BuildConfig config) {
    CorpusFileEnumerator enumerator = new CorpusFileEnumerator(CorpusStages.format(config), Long.MAX_VALUE);
    Map<String, CorpusFiles.Entry> files = new LinkedHashMap<>();
    long now = System.currentTimeMillis();
    try {
      for (FileSourceSplit split : enumerator.enumerateSplits(
          CorpusStages.paths(config).toArray(new Path[0]), 1)) {
        if (CorpusFileEnumerator.isUnreadable(split)) {
          continue;
        }
        long modified = split.fileModificationTime();
        // Racily clean: a time this close to now may not change with the next write.
        long trusted = modified <= 0 || modified > now - RACY_MILLIS ? 0 : modified;
        files.putIfAbsent(split.path().toString(),
            new CorpusFiles.Entry(split.path().toString(), split.fileSize(), trusted, false));
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot list the corpus: " + e.getMessage(), e);
    }
    return new ArrayList<>(files.values());
  }

  /**
   * A fingerprint of every setting that shapes how records are read and what they become: the
   * document settings (chunker, model, analyzer, range fields), the input format and the whole ingest
   * section. A listing made under other settings vouches for nothing.
   */
  static String settings(BuildContext ctx) {
    BuildConfig config = ctx.config();
    String ingest;
    try {
      ingest = SnapshotStore.json().writeValueAsString(config.ingest);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
    return Checksums.sha256(String.join("\n", "kiln-corpus-settings-1", ctx.documentSettings(),
        String.valueOf(config.inputFormat()), ingest).getBytes(StandardCharsets.UTF_8));
  }

  /** The listing as {@code corpus-files.tsv} holds it, and the manifest's description of those bytes. */
  record Encoded(byte[] data, Manifest.CorpusFilesEntry entry) {}

  Encoded encode() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try {
      Manifest.CorpusFilesEntry entry = CorpusFiles.write(bytes, settings, entries);
      return new Encoded(bytes.toByteArray(), entry);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Writes {@code data} into the snapshot being built (after its staging marker: gc leaves it alone). */
  static void write(SnapshotStore store, String snapshotId, byte[] data) throws IOException {
    store.storage().write(SnapshotLayout.snapshotKey(snapshotId) + SnapshotLayout.CORPUS_FILES, data);
  }
}
