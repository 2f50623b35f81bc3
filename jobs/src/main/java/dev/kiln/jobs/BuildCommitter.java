package dev.kiln.jobs;

import dev.kiln.index.ParentStoreWriter;
import dev.kiln.internal.PausePoint;
import dev.kiln.model.ShardResult;
import dev.kiln.operators.JobCounters;
import dev.kiln.operators.QuarantineSummary;
import dev.kiln.operators.StageReport;
import dev.kiln.publish.GateFailedException;
import dev.kiln.publish.PublishConflictException;
import dev.kiln.publish.RecallFloor;
import dev.kiln.publish.ShardSizeAdvice;
import dev.kiln.publish.ShardVerifier;
import dev.kiln.publish.SnapshotPublisher;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.VerifyReport;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The end of every build, inside the job: from the stages' reports alone, check the input was good
 * enough, that every shard arrived exactly once with the expected chunks, apply the recall gate, write
 * the manifest (the commit record) and compare-and-set {@code CURRENT}. Nothing is read back or
 * downloaded: the writers described their own files, and the storage is asked only for the file set
 * and sizes before {@code VERIFIED} is recorded ({@code by: build}).
 *
 * <p>Failures keep the protocol's promises: before the manifest, the unpublished snapshot is removed
 * (its stored vectors kept for the next build); a failed gate writes a {@code HELD} manifest and keeps
 * everything; a lost compare-and-set keeps the complete snapshot.
 */
final class BuildCommitter {
  private static final Logger LOG = LoggerFactory.getLogger(BuildCommitter.class);

  /** Counters the manifest records (corpus builds; changelog builds add theirs). */
  private static final List<String> MANIFEST_COUNTERS = List.of(JobCounters.RECORDS_READ, JobCounters.DOCUMENTS,
      JobCounters.QUARANTINED, JobCounters.CHUNKS, JobCounters.CHUNKS_EMBEDDED, JobCounters.CHUNKS_REUSED,
      JobCounters.CHUNKS_TRUNCATED, JobCounters.CHUNKS_OVERSIZE, JobCounters.PARENTS, JobCounters.CHUNKS_SUPPLIED,
      JobCounters.CHUNKS_DEDUPLICATED, JobCounters.MODEL_LOADS, JobCounters.SHARDS_WITHOUT_POSITIONS,
      JobCounters.REUSE_PARTS_READ, JobCounters.REUSE_PARTS_REFUSED);
  private static final List<String> CHANGELOG_COUNTERS = List.of(JobCounters.CHANGELOG_UPSERTS,
      JobCounters.CHANGELOG_DELETES, JobCounters.CHANGELOG_DELETE_UNKNOWN, JobCounters.CHANGELOG_SUPERSEDED,
      JobCounters.CHANGELOG_CHUNKS_REMOVED);
  private static final List<String> INCREMENTAL_COUNTERS = List.of(JobCounters.INCREMENTAL_UNCHANGED,
      JobCounters.INCREMENTAL_KEPT, JobCounters.INCREMENTAL_REMOVED, JobCounters.CHANGELOG_CHUNKS_REMOVED,
      JobCounters.RECORDS_UNREAD, JobCounters.INCREMENTAL_RELOCATED);

  private final CommitPlan plan;

  BuildCommitter(CommitPlan plan) {
    this.plan = plan;
  }

  SnapshotStore store() {
    return plan.target.store();
  }

  CommitResult commit(List<StageReport> reports) throws IOException {
    long start = System.currentTimeMillis();
    String id = plan.snapshotId;
    SnapshotStore store = store();
    SnapshotPublisher publisher = new SnapshotPublisher(store);
    Map<String, Long> totals = new TreeMap<>();
    List<QuarantineSummary> quarantine = new ArrayList<>();
    List<ShardResult> shardResults = new ArrayList<>();
    List<Manifest.FileEntry> docstoreFiles = new ArrayList<>();
    for (StageReport r : reports) {
      r.counters().forEach((k, v) -> totals.merge(k, v, Long::sum));
      if (r.quarantine() != null) {
        quarantine.add(r.quarantine());
      }
      if (r.shard() != null) {
        shardResults.add(r.shard());
      }
      docstoreFiles.addAll(r.files());
    }
    QuarantineSummary bad = QuarantineSummary.merge(quarantine);
    Manifest manifest;
    GateFailedException gate = null;
    double minRecall = -1;
    int before = 0;
    int after = 0;
    try {
      // Records of files left unread (unchanged since the base) count as records: they were read once.
      BadInputCheck.check(count(totals, JobCounters.RECORDS_READ) + count(totals, JobCounters.RECORDS_UNREAD),
          count(totals, JobCounters.QUARANTINED),
          plan.maxBadFraction, bad, plan.quarantineDir);
      if (count(totals, JobCounters.DOCUMENTS) == 0 && plan.changelog == null) {
        throw new SnapshotException("no documents were read (" + count(totals, JobCounters.RECORDS_READ)
            + " records, " + count(totals, JobCounters.QUARANTINED) + " quarantined): nothing to publish");
      }
      // A changelog or incremental build's shards hold the base's chunks minus those removed plus the fresh ones.
      long base = plan.changelog != null ? plan.changelog.baseChunks() : Math.max(0, plan.incrementalBaseChunks);
      long expected = count(totals, JobCounters.CHUNKS_EMBEDDED) + count(totals, JobCounters.CHUNKS_REUSED)
          + count(totals, JobCounters.CHUNKS_SUPPLIED) + count(totals, JobCounters.CHUNKS_DEDUPLICATED)
          - count(totals, JobCounters.CHUNKS_DUPLICATE_ID)
          + (plan.changelog == null && plan.incrementalBaseChunks < 0 ? 0
          : base - count(totals, JobCounters.CHANGELOG_CHUNKS_REMOVED));
      List<ShardResult> shards;
      try {
        shards = ShardVerifier.verifyReported(id, plan.shards, shardResults, expected);
      } catch (GateFailedException e) {
        gate = e; // every shard is there, but the counts disagree: hold, do not discard
        shards = e.shards();
      }
      for (ShardResult r : shards) {
        before += r.segmentsBefore();
        after += r.segmentsAfter();
      }
      if (plan.index.recallProbeSamples > 0) {
        Map<Integer, Double> recalls = new TreeMap<>();
        shards.forEach(r -> recalls.put(r.shard(), r.recall()));
        try {
          minRecall = RecallFloor.check(id, recalls, plan.index);
        } catch (GateFailedException e) {
          gate = gate != null ? gate : e;
        }
      }
      manifest = manifest(store, shards, totals, bad, docstore(totals, docstoreFiles));
      if (gate != null) {
        publisher.writeHeldManifest(manifest, gate.gate(), gate.getMessage());
      } else {
        publisher.writeManifest(manifest);
      }
    } catch (RuntimeException | IOException e) {
      discard(publisher);
      throw e;
    }
    if (gate != null) {
      // A failed gate is no reason to throw away hours of embedding: the snapshot stays, complete and
      // checksummed but HELD, and the message says how to go on.
      throw new SnapshotException(gate.getMessage() + ". Its shards and vectors are kept (snapshot " + id
          + " is HELD, not published): publish it anyway with 'kiln snapshots publish " + id + " --force' (every"
          + " file is still verified), or fix the cause and rerun the build with '--reuse-from " + id
          + "' to reuse its vectors");
    }
    ShardSizeAdvice.advise(manifest).ifPresent(advice -> LOG.warn("snapshot {}: {}", id, advice));
    PausePoint.reached("before-current");
    VerifyReport published = null;
    if (plan.publish) {
      try {
        published = publisher.publishBuilt(id, plan.base, plan.force);
      } catch (PublishConflictException e) {
        throw e; // the snapshot is complete and verified: keep it, so it can still be published by hand
      } catch (RuntimeException e) {
        discard(publisher); // the failure may follow a compare-and-set that succeeded: discard checks CURRENT
        throw e;
      }
    }
    long millis = System.currentTimeMillis() - start;
    LOG.info("committed snapshot {} ({}) in {} ms", id, plan.publish ? "published" : "not published", millis);
    return new CommitResult(id, plan.publish, manifest, minRecall, before, after, millis,
        published == null ? 0 : published.referencedFiles(), published == null ? 0 : published.hashedFiles(),
        published == null ? 0 : published.hashedBytes());
  }

  private void discard(SnapshotPublisher publisher) {
    if (publisher.discardUnpublished(plan.snapshotId)) {
      LOG.info("removed unpublished snapshot {}", plan.snapshotId);
    }
  }

  private static long count(Map<String, Long> totals, String name) {
    return totals.getOrDefault(name, 0L);
  }

  /** The parents docstore: every parent cut was written, and every shard's part arrived. */
  private Manifest.DocstoreEntry docstore(Map<String, Long> totals, List<Manifest.FileEntry> files) {
    if (!plan.parents) {
      return null;
    }
    long written = count(totals, JobCounters.PARENTS_WRITTEN);
    if (plan.changelog == null && count(totals, JobCounters.PARENTS) != written) {
      throw new SnapshotException("docstore of snapshot " + plan.snapshotId + ": " + count(totals, JobCounters.PARENTS)
          + " parents were cut but " + written + " written");
    }
    for (int shard = 0; shard < plan.shards; shard++) {
      String prefix = SnapshotLayout.shardDirName(shard) + "/";
      if (files.stream().noneMatch(f -> f.name().startsWith(prefix))) {
        throw new SnapshotException("docstore of snapshot " + plan.snapshotId + ": part " + prefix + " is missing");
      }
    }
    List<Manifest.FileEntry> sorted = new ArrayList<>(files);
    sorted.sort(Comparator.comparing(Manifest.FileEntry::name));
    // A changelog or incremental build's docstore also holds the base's parents of documents it left alone.
    long parents = plan.changelog != null || plan.incrementalBaseChunks >= 0
        ? count(totals, JobCounters.CHANGELOG_PARENTS) : written;
    return new Manifest.DocstoreEntry(SnapshotLayout.PARENTS, ParentStoreWriter.FORMAT, parents, sorted);
  }

  private Manifest manifest(SnapshotStore store, List<ShardResult> shards, Map<String, Long> totals,
      QuarantineSummary bad, Manifest.DocstoreEntry docstore) throws IOException {
    Manifest draft = SnapshotStore.json().readValue(plan.manifestDraft, Manifest.class);
    List<Manifest.ShardEntry> entries = new ArrayList<>();
    for (ShardResult r : shards) {
      entries.add(new Manifest.ShardEntry(r.shard(), SnapshotLayout.shardDirName(r.shard()), r.chunks(),
          r.documents(), r.files()));
    }
    Map<String, Long> counters = new LinkedHashMap<>();
    MANIFEST_COUNTERS.forEach(name -> counters.put(name, count(totals, name)));
    if (draft.rangeFields() != null) {
      counters.put(JobCounters.RANGE_VALUES_UNPARSED, count(totals, JobCounters.RANGE_VALUES_UNPARSED));
    }
    // A remote root's traffic, recorded only where there was some (local roots move nothing).
    for (String name : List.of(JobCounters.SHARD_BYTES_UPLOADED, JobCounters.BASE_BYTES_READ,
        JobCounters.PARENTS_BYTES_UPLOADED, JobCounters.PARENTS_BASE_BYTES_READ)) {
      if (count(totals, name) > 0) {
        counters.put(name, count(totals, name));
      }
    }
    long quarantined = count(totals, JobCounters.QUARANTINED);
    Manifest.EmbeddingsInfo drafted = draft.embeddings();
    List<Manifest.FileEntry> vectorFiles =
        new ArrayList<>(StoredVectorParts.describe(store.storage(), plan.snapshotId, drafted.directory()));
    InheritedVectors.Attached inherited = InheritedVectors.attach(store.storage(), plan.snapshotId,
        drafted.directory(), plan.inheritedVectors,
        vectorFiles.stream().map(Manifest.FileEntry::name).collect(Collectors.toSet()));
    vectorFiles.addAll(inherited.references());
    Manifest.EmbeddingsInfo embeddings = new Manifest.EmbeddingsInfo(drafted.directory(), drafted.modelFingerprint(),
        drafted.dimension(), count(totals, JobCounters.CHUNKS_EMBEDDED), count(totals, JobCounters.CHUNKS_REUSED),
        plan.reusedFrom, vectorFiles, count(totals, JobCounters.CHUNKS_SUPPLIED),
        count(totals, JobCounters.CHUNKS_DEDUPLICATED), plan.resumedFrom, inherited.complete());
    Manifest m = new Manifest(Manifest.FORMAT_VERSION, plan.snapshotId, Instant.now().toString(), draft.parent(),
        draft.model(), draft.chunker(), draft.index(), counters, entries,
        new Manifest.QuarantineInfo(quarantined, bad.byReason(), quarantined > 0 ? plan.quarantineDir : null),
        embeddings, docstore).withRangeFields(draft.rangeFields()).withCorpusFiles(draft.corpusFiles());
    if (plan.incrementalBaseChunks >= 0) {
      INCREMENTAL_COUNTERS.forEach(name -> m.counters().put(name, count(totals, name)));
    }
    if (plan.changelog != null) {
      CHANGELOG_COUNTERS.forEach(name -> m.counters().put(name, count(totals, name)));
      CommitPlan.ChangelogCommit c = plan.changelog;
      return m.withChangelog(new Manifest.ChangelogInfo(c.topic(), c.endOffsets(), c.startOffsets(), c.base(),
          count(totals, JobCounters.CHANGELOG_UPSERTS), count(totals, JobCounters.CHANGELOG_DELETES),
          count(totals, JobCounters.CHANGELOG_DELETE_UNKNOWN)));
    }
    return m;
  }
}
