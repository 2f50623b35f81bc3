package dev.kiln.jobs;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.kiln.config.BuildConfig;
import dev.kiln.config.ChunkerConfig;
import dev.kiln.config.VectorEncoding;
import dev.kiln.embed.ModelSpec;
import dev.kiln.index.Analyzers;
import dev.kiln.model.ContentType;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.vectors.VectorFiles;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The part of a build's manifest the client knows before the job starts — model, chunker and index
 * settings, the parent snapshot, where stored vectors go — and the {@link CommitPlan} that carries it
 * to the job's committer, which adds the shards, counters and checksums.
 */
final class ManifestDraft {
  private ManifestDraft() {}

  static CommitPlan plan(BuildContext ctx, String id, String base, BuildMode mode,
      Manifest.CorpusFilesEntry corpusFiles, EmbeddingReuse.Plan reuse, InheritedVectors.Plan inherited,
      boolean force) {
    BuildConfig config = ctx.config();
    ModelSpec model = ctx.model();
    Manifest draft = new Manifest(Manifest.FORMAT_VERSION, id, null, base,
        new Manifest.ModelInfo(model.name(), model.dimension(), model.pooling().name().toLowerCase(Locale.ROOT),
            model.normalize(), model.maxTokens(), ctx.modelFingerprint(), model.directory()),
        chunkerInfo(config.chunker, model),
        new Manifest.IndexInfo(config.index.analyzer, config.index.bm25K1, config.index.bm25B, "dot_product",
            config.index.hnswM, config.index.hnswBeamWidth, Analyzers.CHINESE, vectorEncodingKey(config)),
        Map.of(), List.of(), null,
        new Manifest.EmbeddingsInfo(VectorFiles.DIRECTORY, ctx.modelFingerprint(), model.dimension(), 0, 0, null,
            List.of(), 0),
        null).withRangeFields(rangeFieldsKey(config)).withCorpusFiles(corpusFiles);
    String json;
    try {
      json = SnapshotStore.json().writeValueAsString(draft);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
    CommitPlan.ChangelogCommit log = null;
    long incrementalBaseChunks = -1;
    switch (mode) {
      case BuildMode.Full full -> { }
      case BuildMode.Incremental incremental -> incrementalBaseChunks = incremental.baseManifest().totalChunks();
      case BuildMode.Changelog(ChangelogPlan changelog) -> log = new CommitPlan.ChangelogCommit(changelog.topic(),
          changelog.base(), changelog.baseChunks(), changelog.startOffsets(), changelog.endOffsets());
    }
    return new CommitPlan(id, base, config.publish, force, ctx.target(), config.shards,
        config.chunker.parents.enabled, config.ingest.maxBadFraction, ctx.quarantineDir(id), config.index, json,
        reuse.source().isEmpty() ? null : reuse.source().snapshotId(), reuse.source().resumedFrom(), log,
        incrementalBaseChunks, inherited);
  }

  private static Manifest.ChunkerInfo chunkerInfo(ChunkerConfig c, ModelSpec model) {
    Map<String, String> strategies = new LinkedHashMap<>();
    for (ContentType type : ContentType.values()) {
      strategies.put(type.name().toLowerCase(Locale.ROOT), c.strategyFor(type));
    }
    // The fingerprint is the settings part of every content key: tokenizer named as the key names it.
    return new Manifest.ChunkerInfo(c.strategy, c.size, c.overlap, model.name(), c.fingerprint(model.source()),
        strategies, c.hardCap, c.breadcrumbPrefix, c.parents.enabled ? c.parents.size : null);
  }

  /** Range-indexed metadata keys and their type labels, normalised; empty: none, and the key is not written. */
  private static Map<String, String> rangeFieldsKey(BuildConfig config) {
    Map<String, String> out = new TreeMap<>();
    config.index.rangeTypes().forEach((key, type) -> out.put(key, type.label()));
    return out;
  }

  /** Quantised encodings only: absent means float32, and older readers refuse the key. */
  private static String vectorEncodingKey(BuildConfig config) {
    VectorEncoding encoding = VectorEncoding.parse(config.index.vectorEncoding);
    return encoding.quantized() ? encoding.label() : null;
  }
}
