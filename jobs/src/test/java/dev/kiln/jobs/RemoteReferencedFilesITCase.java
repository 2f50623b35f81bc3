package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.BuildConfig;
import dev.kiln.publish.SnapshotPublisher;
import dev.kiln.snapshot.Checksums;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.VerifiedRecord;
import dev.kiln.snapshot.VerifyReport;
import dev.kiln.snapshot.io.RemoteStorages;
import dev.kiln.snapshot.io.SnapshotMirror;
import dev.kiln.testing.S3Server;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 44 on a real S3-compatible server (s3proxy on 127.0.0.1): an incremental build references its
 * base's unchanged segment objects, whose SHA-256 it copies rather than computes, so its publish hashes
 * each referenced object unless the owner's {@code VERIFIED} record holds the ETag and Last-Modified the
 * bucket reports now. Untouched, nothing is hashed; one referenced segment object replaced with other
 * bytes of the same size fails the next build's publish ({@link SnapshotPublisher#publishBuilt}, what the
 * build's committer runs), naming the file, and {@code CURRENT} stays.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RemoteReferencedFilesITCase {
  static final String BUCKET = "kiln";
  static final String ROOT = "s3://" + BUCKET + "/snapshots";
  private static final Pattern HASHED = Pattern.compile("referenced files hashed at publish\\s*\\|?\\s*(\\d+) of (\\d+)"
      + " \\((\\d+) bytes\\)");

  @TempDir static Path work;
  static S3Server server;
  static Map<String, String> s3;
  static Path corpus;
  static Manifest first;
  static Manifest second;
  static String secondOutput;

  @BeforeAll
  static void buildThenBuildIncrementallyOverTheUntouchedBucket() throws Exception {
    server = new S3Server(work.resolve("blobs"), BUCKET);
    s3 = server.settings();
    corpus = work.resolve("corpus.jsonl");
    List<String> lines = IncrementalBuildITCase.firstCorpus();
    Files.write(corpus, lines);
    first = build(c -> {}, new ByteArrayOutputStream());
    Files.write(corpus, IncrementalBuildITCase.changedCorpus(lines));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    second = build(c -> {}, out);
    secondOutput = out.toString(StandardCharsets.UTF_8);
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  static Manifest build(Consumer<BuildConfig> tweak, ByteArrayOutputStream out) throws Exception {
    return SmallBuilds.build(corpus.toString(), ROOT, c -> {
      c.filesystem.putAll(s3);
      tweak.accept(c);
    }, out);
  }

  static SnapshotMirror mirror(Path local) {
    return new SnapshotMirror(RemoteStorages.open(ROOT, s3), ROOT, local);
  }

  @Test
  @Order(1)
  void overAnUntouchedBucketThePublishHashesNoReferencedFile() throws Exception {
    assertTrue(secondOutput.contains("+ incremental: yes, over CURRENT " + first.id()), secondOutput);
    Matcher m = HASHED.matcher(secondOutput);
    assertTrue(m.find(), secondOutput);
    long referenced = second.shards().stream().flatMap(s -> s.files().stream()).filter(f -> f.snapshot() != null)
        .count();
    assertTrue(referenced > 0, "the rebuild references its base's unchanged segments");
    assertEquals(0, Long.parseLong(m.group(1)), m.group());
    assertTrue(Long.parseLong(m.group(2)) >= referenced, m.group());
    assertEquals(0, Long.parseLong(m.group(3)), m.group());

    // Each record holds the token the bucket gave for every file it checked, referenced ones too.
    SnapshotStore store = RemoteStorages.store(ROOT, s3);
    VerifiedRecord record = store.verifiedRecord(second.id()).orElseThrow();
    assertEquals("build", record.by());
    for (Manifest.ShardEntry s : second.shards()) {
      for (Manifest.FileEntry f : s.files()) {
        String token = record.versions().get(s.directory() + "/" + f.name());
        assertTrue(token != null && token.startsWith("etag="), f + ": " + token);
        assertEquals(store.storage().stat(SnapshotLayout.fileKey(second.id(), s.directory(), f)).version(), token);
      }
    }
  }

  @Test
  @Order(2)
  void aReferencedSegmentReplacedWithOtherBytesOfTheSameSizeFailsThePublishNamingIt() throws Exception {
    // A third build, complete but not yet published: its manifest references the first's segments.
    List<String> lines = new ArrayList<>(Files.readAllLines(corpus));
    lines.add(IncrementalBuildITCase.line("d98", "One more document, about lighthouse keepers."));
    Files.write(corpus, lines);
    Manifest third = build(c -> c.publish = false, new ByteArrayOutputStream());
    assertEquals(second.id(), third.parent());
    // The largest file it references from the first, replaced in the bucket with other bytes of the same
    // size. (Its writers have read their base by now: over files this small they read every one whole and
    // check it themselves; over real segments they read a few blocks, and the rest is the publish's.)
    Manifest.ShardEntry shard = third.shards().stream()
        .filter(s -> s.files().stream().anyMatch(f -> first.id().equals(f.snapshot()))).findFirst().orElseThrow();
    Manifest.FileEntry shared = shard.files().stream().filter(f -> first.id().equals(f.snapshot()))
        .max(Comparator.comparingLong(Manifest.FileEntry::size)).orElseThrow();
    String name = shard.directory() + "/" + shared.name();
    String key = "snapshots/" + SnapshotLayout.fileKey(third.id(), shard.directory(), shared);
    byte[] good = server.bytes(key);
    byte[] bad = good.clone();
    bad[bad.length / 2] ^= 0x01;
    server.put(key, bad);
    SnapshotStore store = RemoteStorages.store(ROOT, s3);
    try {
      // The very publish the build's committer runs (SnapshotPublisher.publishBuilt): refused, naming it.
      SnapshotException e = assertThrows(SnapshotException.class,
          () -> new SnapshotPublisher(store).publishBuilt(third.id(), second.id(), false));
      assertTrue(e.getMessage().contains("failed verification and will not be published")
          && e.getMessage().contains(name + ": sha256 " + Checksums.sha256(bad) + ", manifest says "
          + shared.sha256()), e.getMessage());
      assertEquals(second.id(), store.currentId(), "CURRENT did not move");
      assertTrue(store.verifiedRecord(third.id()).isEmpty(), "no record vouches for it");

      // ... and a download of the published snapshot, which references the same object, refuses it too.
      SnapshotException refused = assertThrows(SnapshotException.class,
          () -> mirror(work.resolve("refused")).localizeForServing(second.id()));
      assertTrue(refused.getMessage().contains(name), refused.getMessage());

      // Untouched, the same publish hashes nothing referenced that a record vouches for.
      server.put(key, good);
      VerifyReport published = new SnapshotPublisher(store).publishBuilt(third.id(), second.id(), false);
      assertEquals(List.of(), published.problems());
      assertEquals(1, published.hashedFiles(), "only the object put back (a new Last-Modified): "
          + published.describeReferenced());
      assertEquals(third.id(), store.currentId());
    } finally {
      server.put(key, good);
    }
  }
}
