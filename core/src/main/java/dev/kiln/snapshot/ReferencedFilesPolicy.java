package dev.kiln.snapshot;

import java.io.IOException;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Which files a build's own publish hashes: none that the build wrote (their SHA-256 in the manifest
 * was computed by the writers from the bytes they wrote), but each file it references from an earlier
 * snapshot — whose SHA-256 was copied from the base manifest, and whose object may have been replaced
 * since — unless a {@code VERIFIED} record vouches for that very object as it is now. Without this, an
 * object overwritten in a bucket (same size, other bytes) would be published under a manifest it does
 * not match, and only a later download would refuse it.
 *
 * <p>Records that may vouch for a referenced file: its owner's (the snapshot that wrote it) and the
 * base's ({@link Manifest#parent}, which lists every file this snapshot references from it, with the
 * same owner). The base's matters once the owner is gone: gc removes an old snapshot's manifest and
 * record but keeps the files later snapshots reference, and each publish records the tokens of every
 * file it checked, so the tokens are carried forward build by build. A record vouches only when it
 * belongs to its snapshot's manifest as stored now, that manifest lists the file under the same name
 * with the same owner, size and SHA-256, and the file's version token now (object stores) or identity
 * now (local roots, {@link VerifiedRecord#vouchesFor}) is the one recorded. Anything else — no record,
 * no token, another token, an unreadable manifest — hashes the file. The few records and manifests are
 * read once per publish, whatever the number of files.
 */
final class ReferencedFilesPolicy implements SnapshotVerifier.HashPolicy {
  /** A snapshot whose record may vouch: its manifest's files by name, its record and the record's time. */
  record Voucher(String id, Map<String, Manifest.FileEntry> files, VerifiedRecord record, long recordNanos) {
    boolean vouches(String name, Manifest.FileEntry f, String owner, FileIdentity identity, String version) {
      Manifest.FileEntry listed = files.get(name);
      if (listed == null || listed.size() != f.size() || !listed.sha256().equals(f.sha256())
          || !listed.owner(id).equals(owner)) {
        return false;
      }
      return identity != null ? record.vouchesFor(name, identity, recordNanos)
          : record.vouchesForVersion(name, version);
    }
  }

  private final SnapshotStore store;
  private final Manifest manifest;
  private final Map<String, Manifest.FileEntry> referenced;
  private final Map<String, Optional<Voucher>> vouchers = new HashMap<>();

  ReferencedFilesPolicy(SnapshotStore store, Manifest manifest) {
    this.store = store;
    this.manifest = manifest;
    Map<String, Manifest.FileEntry> refs = new HashMap<>();
    files(manifest).forEach((name, f) -> {
      if (f.referenced(manifest.id())) {
        refs.put(name, f);
      }
    });
    this.referenced = refs;
  }

  /** How many files the manifest references from earlier snapshots. */
  long referencedFiles() {
    return referenced.size();
  }

  @Override
  public boolean hash(String name, FileIdentity identity) {
    return hash(name, identity, null);
  }

  @Override
  public boolean hash(String name, FileIdentity identity, String version) {
    Manifest.FileEntry f = referenced.get(name);
    if (f == null) {
      return false; // the build's own file: its writer hashed it
    }
    String owner = f.owner(manifest.id());
    Set<String> candidates = new LinkedHashSet<>();
    candidates.add(owner);
    if (manifest.parent() != null) {
      candidates.add(manifest.parent());
    }
    for (String id : candidates) {
      Optional<Voucher> v = vouchers.computeIfAbsent(id, this::voucher);
      if (v.isPresent() && v.get().vouches(name, f, owner, identity, version)) {
        return false;
      }
    }
    return true;
  }

  /** The voucher of snapshot {@code id}, or empty where it has no readable manifest and record for it. */
  private Optional<Voucher> voucher(String id) {
    if (!SnapshotLayout.isSnapshotId(id) || id.equals(manifest.id())) {
      return Optional.empty();
    }
    try {
      byte[] bytes = store.manifestBytes(id);
      Manifest m = SnapshotStore.parseManifest(id, bytes);
      String sha = Checksums.sha256(bytes);
      Optional<VerifiedRecord> record = store.verifiedRecord(id).filter(r -> sha.equals(r.manifestSha256()));
      if (record.isEmpty()) {
        return Optional.empty();
      }
      long recordNanos = store.storage().identity(SnapshotLayout.verifiedKey(id))
          .map(FileIdentity::modifiedNanos).orElse(Long.MIN_VALUE);
      return Optional.of(new Voucher(id, files(m), record.get(), recordNanos));
    } catch (SnapshotException | IOException e) {
      return Optional.empty(); // gone (gc) or unreadable: it vouches for nothing, the file is hashed
    }
  }

  /** Every file a manifest lists, by its name relative to the snapshot (as the verifier names it). */
  static Map<String, Manifest.FileEntry> files(Manifest m) {
    Map<String, Manifest.FileEntry> out = new HashMap<>();
    for (Manifest.ShardEntry s : m.shards()) {
      add(out, s.directory(), s.files());
    }
    if (m.docstore() != null) {
      add(out, m.docstore().directory(), m.docstore().files());
    }
    if (m.embeddings() != null) {
      add(out, m.embeddings().directory(), m.embeddings().files());
    }
    return out;
  }

  private static void add(Map<String, Manifest.FileEntry> out, String directory, List<Manifest.FileEntry> files) {
    files.forEach(f -> out.put(directory + "/" + f.name(), f));
  }
}
