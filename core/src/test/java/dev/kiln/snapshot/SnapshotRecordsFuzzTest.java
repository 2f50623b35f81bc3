package dev.kiln.snapshot;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.testing.FuzzTries;
import dev.kiln.testing.JsonMutations;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Fuzzes the small records of a snapshots root that {@link SnapshotStore} reads besides the manifest:
 * {@code VERIFIED} ({@link VerifiedRecord}, golden and version 2 with identities), {@code STAGING}
 * ({@link StagingMarker}), {@code HELD} ({@link HeldRecord}) mutated in structure and bytes, and {@code
 * CURRENT} as random bytes. An unreadable record is absent (or, for {@code HELD}, held as unknown), a bad
 * {@code CURRENT} a {@link SnapshotException}; the methods that consume a record work on whatever was
 * read. Nothing else is thrown, within a time budget.
 */
@AddLifecycleHook(FuzzTries.class)
class SnapshotRecordsFuzzTest {
  static final String ID = ManifestFuzzTest.ID;
  static final String VERIFIED_V2 = """
      {"format_version": 2, "manifest_sha256": "%s", "verified": "2026-12-03T17:28:04.118Z", "by": "publish",
       "files": 2, "bytes": 10, "identities": {"shard-00000/_0.cfe": {"size": 5, "mtime_ns": 1, "file_key": "(dev=1,ino=2)"},
       "parents/shard-00000/_0.si": {"size": 5, "mtime_ns": 2, "file_key": null}}, "rebound": "2026-12-03T17:29:00Z"}
      """.formatted("ab".repeat(32));
  static final String STAGING = """
      {"state": "building", "host": "kiln-1", "pid": 4242, "started": "2026-12-03T17:27:58Z", "base": "20261202T000000Z-000000",
       "host_id": "h-1", "nonce": "0011223344556677", "heartbeat": "2026-12-03T17:28:30Z"}
      """;
  static final String HELD = """
      {"gate": "quality", "reason": "nDCG@10 fell by 0.08", "held": "2026-12-03T17:29:00Z"}
      """;

  static Path root;
  static SnapshotStore store;
  static LocalSnapshotStorage storage;

  @BeforeContainer
  static void root() throws IOException {
    root = Files.createTempDirectory("kiln-records-fuzz");
    store = new SnapshotStore(root);
    storage = new LocalSnapshotStorage(root);
  }

  @AfterContainer
  static void cleanUp() throws IOException {
    try (var paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  @Provide
  Arbitrary<byte[]> records() {
    return Arbitraries.of(ManifestFuzzTest.golden("VERIFIED"), VERIFIED_V2.getBytes(StandardCharsets.UTF_8),
        STAGING.getBytes(StandardCharsets.UTF_8), HELD.getBytes(StandardCharsets.UTF_8));
  }

  @Provide
  Arbitrary<List<JsonMutations.Mutation>> mutations() {
    return JsonMutations.mutationLists();
  }

  @Provide
  Arbitrary<List<JsonMutations.Damage>> damages() {
    return JsonMutations.damages();
  }

  @Property(tries = 70)
  void mutatedStructure(@ForAll("records") byte[] record, @ForAll("mutations") List<JsonMutations.Mutation> mutations) {
    assertRecordsRead(JsonMutations.apply(record, mutations));
  }

  @Property(tries = 35)
  void damagedBytes(@ForAll("records") byte[] record, @ForAll("damages") List<JsonMutations.Damage> damages) {
    assertRecordsRead(JsonMutations.damage(record, damages));
  }

  @Property(tries = 35)
  void randomCurrent(@ForAll("current") byte[] current) {
    assertTimeoutPreemptively(ManifestFuzzTest.BUDGET, () -> {
      storage.write(SnapshotLayout.CURRENT, current);
      try {
        store.current().ifPresent(id -> assertTrue(SnapshotLayout.isSnapshotId(id), id));
      } catch (SnapshotException expected) {
        // CURRENT does not hold a snapshot id
      }
    });
  }

  @Provide
  Arbitrary<byte[]> current() {
    return Arbitraries.oneOf(Arbitraries.bytes().array(byte[].class).ofMaxSize(64),
        Arbitraries.of(ID, ID + "\n", " " + ID + "\r\n", "../" + ID, ID + "/..", "", "\n", "snapshots/" + ID,
            ID.toUpperCase(Locale.ROOT), ID + "\u0000").map(s -> s.getBytes(StandardCharsets.UTF_8)));
  }

  /** The same bytes as each record a snapshot directory may hold, read and used as their readers do. */
  static void assertRecordsRead(byte[] bytes) {
    assertTimeoutPreemptively(ManifestFuzzTest.BUDGET, () -> {
      storage.write(SnapshotLayout.verifiedKey(ID), bytes);
      storage.write(SnapshotLayout.stagingKey(ID), bytes);
      storage.write(SnapshotLayout.heldKey(ID), bytes);
      Optional<VerifiedRecord> verified = store.verifiedRecord(ID);
      verified.ifPresent(r -> {
        Map<String, FileIdentity> identities = r.identities() == null ? Map.of() : r.identities();
        for (Map.Entry<String, FileIdentity> e : identities.entrySet()) {
          r.vouchesFor(e.getKey(), e.getValue(), Long.MAX_VALUE);
          r.vouchesFor(e.getKey(), new FileIdentity(5, 1, null), 0);
        }
        r.vouchesFor("absent", new FileIdentity(0, 0, "k"), Long.MIN_VALUE);
      });
      store.stagingMarker(ID).ifPresent(m -> {
        m.owner();
        m.sameBuild(m);
        m.abandoned(System.currentTimeMillis(), 60_000);
        m.abandoned(Long.MAX_VALUE, 0, Long.MIN_VALUE);
        m.beat(Instant.now());
      });
      store.held(ID);
    });
  }
}
