package dev.kiln.snapshot;

import java.util.List;

/**
 * What {@link SnapshotStore#verifyAndReport} found: the problems (empty: the snapshot verified and its
 * {@code VERIFIED} record was written), the files and bytes checked, how many files the manifest
 * references from earlier snapshots, and how many files (and bytes) were hashed. At a build's own
 * publish only referenced files are hashed, and only those no record vouches for: a nightly build
 * over an unchanged bucket hashes none.
 */
public record VerifyReport(List<String> problems, long files, long bytes, long referencedFiles, long hashedFiles,
    long hashedBytes) {

  /** One line for a log: {@code 3 of 41 referenced files hashed (1234 bytes)}. */
  public String describeReferenced() {
    return hashedFiles + " of " + referencedFiles + " referenced files hashed (" + hashedBytes + " bytes)";
  }
}
