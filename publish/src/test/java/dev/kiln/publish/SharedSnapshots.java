package dev.kiln.publish;

import dev.kiln.snapshot.Checksums;
import dev.kiln.snapshot.LocalSnapshotStorage;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStorage;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.StagingMarker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * Synthetic snapshots for retention tests, on any storage: real small files, and format-2 manifests
 * in which a snapshot built on a base references some of the base's shard and docstore files (as
 * incremental builds do) instead of holding them. Written through {@link SnapshotPublisher}: marker,
 * own files, manifest. Where the storage links shared files (a local root), each referenced file is
 * also hard-linked into the new snapshot's directory, as a local build does.
 */
public final class SharedSnapshots {
  private static final String SHARD = SnapshotLayout.shardDirName(0);

  private final SnapshotPublisher publisher;
  private final SnapshotStorage storage;
  private final Random random;
  private final String suffix;
  private int seq;

  /** @param suffix six hex digits that end every id, so that two writers on one root never collide */
  public SharedSnapshots(SnapshotStore store, Random random, String suffix) {
    this.publisher = new SnapshotPublisher(store);
    this.storage = store.storage();
    this.random = random;
    this.suffix = suffix;
  }

  public SnapshotPublisher publisher() {
    return publisher;
  }

  /** Ids that sort in creation order (real ones made within one second need not). */
  public String nextId() {
    seq++;
    return String.format(Locale.ROOT, "20261202T%06dZ-%s", seq, suffix);
  }

  /** A complete snapshot continuing {@code base} (null: a full build), sharing about {@code share} of its files. */
  public String complete(String base, double share) {
    return begin(base).write(share).commit();
  }

  /** Starts a build from {@code base}: its marker, checked against the base as a real build's is. */
  public Build begin(String base) {
    String id = nextId();
    publisher.begin(id, base);
    return new Build(id, base);
  }

  /** One synthetic build. */
  public final class Build {
    private final String id;
    private final String base;
    private final List<Manifest.FileEntry> shard = new ArrayList<>();
    private final List<Manifest.FileEntry> parents = new ArrayList<>();
    private final List<Manifest.FileEntry> parts = new ArrayList<>();

    Build(String id, String base) {
      this.id = id;
      this.base = base;
    }

    public String id() {
      return id;
    }

    /**
     * Writes the build's own files (at least one per directory) and picks which of the base's shard and
     * docstore files it references (each with probability {@code share}; stored vectors are always own).
     */
    public Build write(double share) {
      try {
        if (base != null) {
          Manifest m = publisher.store().manifest(base);
          for (Manifest.FileEntry f : m.shards().get(0).files()) {
            if (random.nextDouble() < share) {
              shard.add(shared(SHARD, f));
            }
          }
          for (Manifest.FileEntry f : m.docstore().files()) {
            if (random.nextDouble() < share) {
              parents.add(shared(SnapshotLayout.PARENTS, f));
            }
          }
        }
        for (int k = 0, n = 1 + random.nextInt(3); k < n; k++) {
          shard.add(own(SHARD, String.format(Locale.ROOT, "_%s_%d.cfs", tag(), k)));
        }
        parents.add(own(SnapshotLayout.PARENTS, SHARD + "/_p" + tag() + ".fdt"));
        parts.add(own(SnapshotLayout.EMBEDDINGS, "part-" + tag() + ".parquet"));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return this;
    }

    private String tag() {
      return id.substring(9, 15) + id.substring(17);
    }

    /** Writes the manifest: the snapshot is complete. */
    public String commit() {
      publisher.writeManifest(new Manifest(Manifest.FORMAT_VERSION, id, Instant.now().toString(), base,
          new Manifest.ModelInfo("m", 2, "mean", true, 16), new Manifest.ChunkerInfo("window", 10, 2, "m"),
          new Manifest.IndexInfo("english", 0.9f, 0.4f, "dot_product", 16, 100), Map.of(),
          List.of(new Manifest.ShardEntry(0, SHARD, 1, 1, List.copyOf(shard))), null,
          new Manifest.EmbeddingsInfo(SnapshotLayout.EMBEDDINGS, "sha256:fp", 2, 1, 0, null, List.copyOf(parts)),
          new Manifest.DocstoreEntry(SnapshotLayout.PARENTS, "kiln-parents-lucene-v1", 1, List.copyOf(parents))));
      return id;
    }

    /** Leaves the build as one whose process died: its marker names a pid of this host that is gone. */
    public void die() {
      StagingMarker was = publisher.store().stagingMarker(id).orElseThrow();
      publisher.writeMarker(id, new StagingMarker(StagingMarker.BUILDING, was.host(), deadPid(), was.started(), base,
          StagingMarker.thisHostId(), was.nonce(), was.heartbeat()));
    }

    private Manifest.FileEntry own(String dir, String name) throws IOException {
      byte[] bytes = new byte[16 + random.nextInt(200)];
      random.nextBytes(bytes);
      storage.write(SnapshotLayout.snapshotKey(id) + dir + "/" + name, bytes);
      return new Manifest.FileEntry(name, bytes.length, Checksums.sha256(bytes));
    }

    /** The base's file {@code f} as this snapshot lists it; on a local root also a hard link of it here. */
    private Manifest.FileEntry shared(String dir, Manifest.FileEntry f) throws IOException {
      if (storage.linksSharedFiles()) {
        LocalSnapshotStorage local = (LocalSnapshotStorage) storage;
        Path link = local.path(SnapshotLayout.snapshotKey(id) + dir + "/" + f.name());
        Files.createDirectories(link.getParent());
        Files.createLink(link, local.path(storage.fileKey(base, dir, f)));
      }
      return f.sharedFrom(base);
    }
  }

  /** A pid that belongs to no running process: one of a process started and waited for. */
  public static long deadPid() {
    try {
      Process p = new ProcessBuilder("true").start();
      p.waitFor();
      return p.pid();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
