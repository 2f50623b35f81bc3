package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.BuildConfig;
import dev.kiln.operators.JobCounters;
import dev.kiln.publish.SnapshotRetention;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.io.RemoteRoots;
import dev.kiln.snapshot.io.RemoteStorages;
import dev.kiln.testing.S3Server;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stored vectors by reference (format 2): an incremental build embeds only what changed, and lists the
 * vectors of the chunks it kept — its base's parts — in its own manifest with their owner. After a
 * full build and two incremental ones, {@code gc --keep 1} removes the full build; the stored vectors
 * it wrote must survive (the kept snapshot references them), so that a full build
 * afterwards embeds nothing. Before references, that build embedded every chunk the incremental
 * builds had not touched: gc had removed the only copy of their vectors.
 */
class StoredVectorReferencesITCase {
  static final String BUCKET = "vectors";
  @TempDir static Path work;
  static S3Server s3;

  @BeforeAll
  static void start() throws Exception {
    s3 = new S3Server(work.resolve("blobs"), BUCKET);
  }

  @AfterAll
  static void stop() throws Exception {
    if (s3 != null) {
      s3.close();
    }
    deleteTree(RemoteRoots.localMirror(s3Root()));
  }

  static String s3Root() {
    return "s3://" + BUCKET + "/" + work.getFileName() + "/snapshots";
  }

  @Test
  void onALocalRootGcKeepsTheVectorsTheKeptSnapshotReferences() throws Exception {
    Path root = work.resolve("local");
    nightsThenGcThenFullBuild(root.toString(), new SnapshotStore(root), c -> {});
  }

  @Test
  void onS3GcKeepsTheVectorsTheKeptSnapshotReferences() throws Exception {
    nightsThenGcThenFullBuild(s3Root(), RemoteStorages.store(s3Root(), s3.settings()),
        c -> c.filesystem.putAll(s3.settings()));
  }

  private void nightsThenGcThenFullBuild(String root, SnapshotStore store, Consumer<BuildConfig> settings)
      throws Exception {
    Path corpus = work.resolve("corpus-" + Math.abs(root.hashCode()) + ".jsonl");
    List<String> lines = new ArrayList<>(IncrementalBuildITCase.firstCorpus());
    Files.write(corpus, lines);
    Manifest first = build(corpus, root, settings);
    lines.set(7, IncrementalBuildITCase.line("d07", "Rewritten on night one: a rigid airship in the hangar."));
    Files.write(corpus, lines);
    Manifest second = build(corpus, root, settings);
    lines.set(8, IncrementalBuildITCase.line("d08", "Rewritten on night two: lighthouse keepers and foghorns."));
    Files.write(corpus, lines);
    Manifest third = build(corpus, root, settings);

    assertTrue(third.counters().get(JobCounters.INCREMENTAL_KEPT) > 0, "the third build is incremental");
    assertTrue(third.embeddings().complete(), "its vectors, own and referenced, cover every chunk");
    Map<String, Set<String>> byOwner = third.embeddings().files().stream()
        .collect(Collectors.groupingBy(f -> f.owner(third.id()), Collectors.mapping(Manifest.FileEntry::name,
            Collectors.toSet())));
    assertEquals(Set.of(first.id(), second.id(), third.id()), byOwner.keySet(), "own parts and both bases'");
    assertEquals(names(first), byOwner.get(first.id()), "the first build's parts, by reference");
    assertEquals(names(second).stream().filter(n -> !names(first).contains(n)).collect(Collectors.toSet()),
        byOwner.get(second.id()), "the second build's own parts, by reference");
    assertTrue(byOwner.get(third.id()).stream().allMatch(n -> n.endsWith("-" + third.id() + ".parquet")),
        "own parts carry the build's id: " + byOwner.get(third.id()));

    SnapshotRetention gc = new SnapshotRetention(store);
    SnapshotRetention.Outcome done = gc.run(gc.plan(1, 3_600_000), 3_600_000);
    assertEquals(List.of(), done.deferred(), done.problem());
    // gc never removes the published snapshot nor the one before it: the first build is what goes.
    assertEquals(List.of(second.id(), third.id()), store.list(), "gc --keep 1 removed the first build");
    assertEquals(List.of(), store.verify(store.manifest(third.id())), "the kept snapshot verifies, vectors included");

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Manifest full = build(corpus, root, c -> {
      settings.accept(c);
      c.incremental = "off";
    }, out);
    String log = out.toString(StandardCharsets.UTF_8);
    assertEquals(0, full.counters().get(JobCounters.CHUNKS_EMBEDDED), "nothing embedded again: " + log);
    assertEquals(full.totalChunks(), full.counters().get(JobCounters.CHUNKS_REUSED), log);
    assertFalse(full.embeddings().complete(), "a full build's own parts are complete by themselves");
    assertTrue(full.embeddings().files().stream().noneMatch(f -> f.referenced(full.id())), "a full build references no vectors");
  }

  private static Set<String> names(Manifest m) {
    return m.embeddings().files().stream().map(Manifest.FileEntry::name).collect(Collectors.toSet());
  }

  private static Manifest build(Path corpus, String root, Consumer<BuildConfig> tweak) throws Exception {
    return build(corpus, root, tweak, new ByteArrayOutputStream());
  }

  private static Manifest build(Path corpus, String root, Consumer<BuildConfig> tweak, ByteArrayOutputStream out)
      throws Exception {
    BuildConfig config = SmallBuilds.config(corpus.toString(), root);
    tweak.accept(config);
    return new SnapshotBuilder(config, new PrintStream(out, true, StandardCharsets.UTF_8))
        .build(BuildJob.localEnvironment(2)).manifest();
  }

  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
