package dev.kiln.jobs;

import dev.kiln.config.IndexConfig;
import dev.kiln.operators.fs.SnapshotsTarget;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything the job's committer needs, decided by the client before the job is submitted, so that the
 * commit (verify, manifest, publish) runs the same inside a detached or application-mode job as on the
 * CLI's embedded mini-cluster. The static part of the manifest (model, chunker, index settings, parent)
 * travels as its JSON ({@code manifestDraft}): the committer adds what only the job knows.
 */
final class CommitPlan implements Serializable {
  private static final long serialVersionUID = 1L;

  final String snapshotId;
  /** What CURRENT named when the build started (null: nothing): the compare-and-set's expected value. */
  final String base;
  final boolean publish;
  final boolean force;
  /** The snapshots root, resolved once by the client (local or remote, with its file system settings). */
  final SnapshotsTarget target;
  final int shards;
  final boolean parents;
  final double maxBadFraction;
  final String quarantineDir;
  final IndexConfig index;
  final String manifestDraft;
  /** The snapshot whose stored vectors the embed stage reuses, or null. */
  final String reusedFrom;
  /** Unpublished builds whose closed parts the embed stage may reuse (resume). */
  final ArrayList<String> resumedFrom;
  /** A changelog build's range and base, or null for a corpus build. */
  final ChangelogCommit changelog;
  /** An incremental corpus build's base chunk count (the expected count starts there), or -1. */
  final long incrementalBaseChunks;
  /** A partial build's stored vectors of earlier snapshots, listed by reference; none for a full build. */
  final InheritedVectors.Plan inheritedVectors;

  /** A changelog build's facts for the manifest and the expected chunk count. */
  record ChangelogCommit(String topic, String base, long baseChunks, Map<String, Long> startOffsets,
      Map<String, Long> endOffsets) implements Serializable {
    ChangelogCommit {
      startOffsets = new HashMap<>(startOffsets);
      endOffsets = new HashMap<>(endOffsets);
    }
  }

  @SuppressWarnings("ParameterNumber") // a value object: one parameter per decision
  CommitPlan(String snapshotId, String base, boolean publish, boolean force, SnapshotsTarget target, int shards,
      boolean parents, double maxBadFraction, String quarantineDir, IndexConfig index, String manifestDraft,
      String reusedFrom, List<String> resumedFrom, ChangelogCommit changelog, long incrementalBaseChunks,
      InheritedVectors.Plan inheritedVectors) {
    this.snapshotId = snapshotId;
    this.base = base;
    this.publish = publish;
    this.force = force;
    this.target = target;
    this.shards = shards;
    this.parents = parents;
    this.maxBadFraction = maxBadFraction;
    this.quarantineDir = quarantineDir;
    this.index = index;
    this.manifestDraft = manifestDraft;
    this.reusedFrom = reusedFrom;
    this.resumedFrom = new ArrayList<>(resumedFrom);
    this.changelog = changelog;
    this.incrementalBaseChunks = incrementalBaseChunks;
    this.inheritedVectors = inheritedVectors;
  }
}
