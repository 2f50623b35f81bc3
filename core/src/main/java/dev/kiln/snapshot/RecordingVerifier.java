package dev.kiln.snapshot;

import java.io.IOException;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;

/**
 * Verifies a snapshot and writes its {@code VERIFIED} record when it matches (removes it when not):
 * what {@link SnapshotStore#verifyAndReport} does, kept apart from the store's read side.
 */
final class RecordingVerifier {
  private RecordingVerifier() {}

  static VerifyReport run(SnapshotStore store, String id, String by, boolean hash) {
    SnapshotStorage storage = store.storage();
    byte[] bytes = store.manifestBytes(id);
    Manifest m = SnapshotStore.parseManifest(id, bytes);
    ReferencedFilesPolicy referenced = new ReferencedFilesPolicy(store, m);
    SnapshotVerifier.Result r = new SnapshotVerifier(storage).check(m, SnapshotVerifier.Scope.ALL,
        hash ? SnapshotVerifier.HashPolicy.ALL : referenced);
    List<String> problems = r.problems();
    try {
      if (problems.isEmpty()) {
        // Re-read: a manifest replaced while we hashed must not inherit this record.
        if (!Arrays.equals(bytes, store.manifestBytes(id))) {
          problems = List.of("manifest.json changed while it was verified");
        } else {
          storage.write(SnapshotLayout.verifiedKey(id), SnapshotStore.json().writeValueAsBytes(new VerifiedRecord(
              VerifiedRecord.FORMAT_VERSION, Checksums.sha256(bytes), Instant.now().toString(), by, r.files(),
              r.bytes(), r.identities().isEmpty() ? null : r.identities(), null,
              r.versions().isEmpty() ? null : r.versions())));
        }
      } else {
        storage.delete(SnapshotLayout.verifiedKey(id));
      }
    } catch (IOException e) {
      throw new SnapshotException("cannot record the verification of " + id + ": " + e.getMessage(), e);
    }
    return new VerifyReport(problems, r.files(), r.bytes(), referenced.referencedFiles(), r.hashed(), r.hashedBytes());
  }
}
