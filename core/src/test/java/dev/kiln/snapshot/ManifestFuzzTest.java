package dev.kiln.snapshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.kiln.testing.FuzzTries;
import dev.kiln.testing.JsonMutations;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Fuzzes the manifest reader every consumer goes through ({@link SnapshotStore#manifest}: Jackson, the
 * version and id checks, {@link ManifestCheck}) with the golden manifests of format version 1 mutated
 * in structure (fields removed, nulled, retyped) and in bytes: a {@link Manifest} or a {@link
 * SnapshotException}, within a time budget; nothing else is thrown.
 */
@AddLifecycleHook(FuzzTries.class)
class ManifestFuzzTest {
  static final String ID = "20261203T172758Z-9f64fe";
  static final Duration BUDGET = Duration.ofSeconds(5);
  static final List<String> GOLDEN = List.of("manifest-full.json", "manifest-changelog.json", "manifest-oldest.json");

  static Path root;
  static SnapshotStore store;

  @BeforeContainer
  static void root() throws IOException {
    root = Files.createTempDirectory("kiln-manifest-fuzz");
    store = new SnapshotStore(root);
  }

  @AfterContainer
  static void cleanUp() throws IOException {
    try (var paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  static byte[] golden(String name) {
    try (InputStream in = ManifestFuzzTest.class.getResourceAsStream("/golden/format-v1/" + name)) {
      assertNotNull(in, name);
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Property(tries = 800)
  void mutatedStructure(@ForAll("golden") String name, @ForAll("mutations") List<JsonMutations.Mutation> mutations) {
    assertManifestOrSnapshotException(JsonMutations.apply(golden(name), mutations));
  }

  @Property(tries = 400)
  void damagedBytes(@ForAll("golden") String name, @ForAll("damages") List<JsonMutations.Damage> damages) {
    assertManifestOrSnapshotException(JsonMutations.damage(golden(name), damages));
  }

  /**
   * Found by {@link #mutatedStructure}: a {@code null} entry in the docstore's files was reported, then
   * dereferenced (a NullPointerException out of {@link ManifestCheck} instead of the malformed manifest).
   */
  @Example
  void aNullDocstoreFileEntryIsAMalformedManifest() throws IOException {
    ObjectMapper json = new ObjectMapper();
    var tree = json.readTree(golden("manifest-full.json"));
    ((ArrayNode) tree.at("/docstore/files")).set(0, (JsonNode) null);
    SnapshotException e = assertThrows(SnapshotException.class,
        () -> SnapshotStore.parseManifest(ID, json.writeValueAsBytes(tree)));
    assertTrue(e.getMessage().contains("parents has an empty file entry"), e.getMessage());
  }

  @Provide
  Arbitrary<String> golden() {
    return Arbitraries.of(GOLDEN);
  }

  @Provide
  Arbitrary<List<JsonMutations.Mutation>> mutations() {
    return JsonMutations.mutationLists();
  }

  @Provide
  Arbitrary<List<JsonMutations.Damage>> damages() {
    return JsonMutations.damages();
  }

  static void assertManifestOrSnapshotException(byte[] bytes) {
    assertTimeoutPreemptively(BUDGET, () -> {
      Path file = root.resolve(SnapshotLayout.manifestKey(ID));
      Files.createDirectories(file.getParent());
      Files.write(file, bytes);
      try {
        Manifest m = store.manifest(ID);
        assertEquals(ID, m.id());
        m.rangeTypes();
      } catch (SnapshotException expected) {
        // the usage error every reader reports
      }
    }, () -> new String(bytes, StandardCharsets.UTF_8));
  }
}
