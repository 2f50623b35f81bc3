package dev.kiln.jobs;

import dev.kiln.operators.BaseDocuments;
import dev.kiln.snapshot.Manifest;

/**
 * What kind of build this is, decided once in the client ({@link SnapshotBuilder}) and passed down:
 * the job's wiring, the manifest draft and the counters table switch over it, so a new kind cannot be
 * forgotten in one of them.
 */
sealed interface BuildMode permits BuildMode.Full, BuildMode.Incremental, BuildMode.Changelog {

  /** The snapshot this build continues, or {@code null}. */
  String base();

  /** A corpus build from empty shards; {@code reason} says why it is not incremental. */
  record Full(String reason) implements BuildMode {
    @Override
    public String base() {
      return null;
    }
  }

  /**
   * A corpus build that continues {@code base}, the snapshot {@code CURRENT} named at the start (the
   * one the publish compares against), when everything that shapes its segments matches ({@link
   * IncrementalPlan}).
   *
   * @param documents what the parse stage compares documents against
   * @param unreadListing the build's own {@code corpus-files.tsv} (a URI under the root) when it leaves
   *     files unchanged since the base unread ({@link CorpusListing}), else {@code null}
   */
  record Incremental(String base, Manifest baseManifest, BaseDocuments documents, String reason,
      String unreadListing) implements BuildMode {

    /** This build, leaving unread the kept files of the listing at {@code listing}. */
    Incremental withUnreadListing(String listing) {
      return new Incremental(base, baseManifest, documents, reason, listing);
    }
  }

  /** A build from a changelog topic's range over a base snapshot (or empty shards). */
  record Changelog(ChangelogPlan plan) implements BuildMode {
    @Override
    public String base() {
      return plan.base();
    }
  }
}
