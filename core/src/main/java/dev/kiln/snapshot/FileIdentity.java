package dev.kiln.snapshot;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.concurrent.TimeUnit;

/**
 * What a file system says about a file that changes when the file is rewritten or replaced: its
 * size, its modification time and its file key (on Linux and macOS the device and inode number;
 * {@code null} where the file system has none). A {@code VERIFIED} record stores one per file so that
 * a reader can tell a file it may trust from one changed or copied since it was hashed
 * ({@link VerifiedRecord#vouchesFor}).
 *
 * <p>It does not see a change that keeps all three: a byte rewritten in place with the old
 * modification time put back ({@code touch -d}), or a copy moved over the file after the file was
 * deleted, which the file system may give the freed inode number, with the old time put back. The
 * inode change time would, but it also changes
 * whenever an incremental build hard-links a shard file into its new snapshot, which would make every
 * open after a build hash the shared files again; full verification ({@code --verify full}, the
 * background verification of {@code kiln serve}, {@code kiln snapshots verify}) finds such a change.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record FileIdentity(
    @JsonProperty("size") long size,
    @JsonProperty("mtime_ns") long modifiedNanos,
    @JsonProperty("file_key") String fileKey) {

  /** The identity in {@code attributes} (read following links). */
  public static FileIdentity of(BasicFileAttributes attributes) {
    Object key = attributes.fileKey();
    return new FileIdentity(attributes.size(), attributes.lastModifiedTime().to(TimeUnit.NANOSECONDS),
        key == null ? null : key.toString());
  }
}
