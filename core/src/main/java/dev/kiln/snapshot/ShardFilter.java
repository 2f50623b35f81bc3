package dev.kiln.snapshot;

import java.util.List;

/**
 * Which shards of a snapshot a reader touches: all of them, or a shard group's ({@code kiln serve
 * --shards}, whose {@code dev.kiln.search.ShardSelection} implements this). It lives here, beside the
 * manifest, because the download of a remote root ({@code SnapshotMirror}, in {@code storage}) and the
 * checks at open ({@link SnapshotStore#openForServing}, {@link SnapshotVerifier}) both restrict
 * themselves to it, and neither may depend on the searcher. A shard's files and its part of the
 * parents docstore belong to the shard; everything else a searcher reads is the snapshot's own.
 */
public interface ShardFilter {
  /** Every shard of the snapshot. */
  ShardFilter EVERY = new ShardFilter() {
    @Override
    public boolean all() {
      return true;
    }

    @Override
    public boolean contains(int shard) {
      return true;
    }

    @Override
    public List<Manifest.ShardEntry> select(Manifest manifest) {
      return manifest.shards();
    }

    @Override
    public String toString() {
      return "all";
    }
  };

  /** Whether every shard is selected, whatever the snapshot's count. */
  boolean all();

  boolean contains(int shard);

  /**
   * The manifest's entries selected, in the manifest's order.
   *
   * @throws SnapshotException when the filter names shards the snapshot does not have
   */
  List<Manifest.ShardEntry> select(Manifest manifest);

  /**
   * {@code m}'s shards this filter covers, for logs and status: {@code "4 shards"} or {@code "2 of 4
   * shards (group 0-1)"}.
   */
  default String describe(Manifest m) {
    int total = m.shards().size();
    if (all()) {
      return total + " shard" + (total == 1 ? "" : "s");
    }
    long selected = m.shards().stream().filter(s -> contains(s.shard())).count();
    return selected + " of " + total + " shards (group " + this + ")";
  }

  /**
   * The files of the parents docstore {@code d} that belong to the selected shards (each shard's part
   * lies under the shard's directory name): all of them when every shard is selected.
   */
  default List<Manifest.FileEntry> docstoreFiles(Manifest m, Manifest.DocstoreEntry d) {
    if (all()) {
      return d.files();
    }
    List<String> parts = m.shards().stream().filter(s -> contains(s.shard())).map(s -> s.directory() + "/").toList();
    return d.files().stream().filter(f -> parts.stream().anyMatch(p -> f.name().startsWith(p))).toList();
  }
}
