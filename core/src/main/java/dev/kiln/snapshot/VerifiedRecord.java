package dev.kiln.snapshot;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code snapshots/ID/VERIFIED}: every file of the snapshot was checked against the manifest whose
 * own SHA-256 is {@code manifest_sha256}, at {@code verified}, by {@code by} ({@code publish},
 * {@code build}, {@code download}, {@code download-serving} or {@code verify}), and — format version
 * 2 — each file had the {@link FileIdentity} in {@code identities} when it was checked. A searcher
 * that finds a record for the manifest it read checks sizes, and hashes only the files the record
 * does not vouch for ({@link #vouchesFor}); {@code kiln snapshots verify} re-reads everything on
 * demand. A record for another manifest is ignored.
 *
 * <p>Version 1 records (no {@code identities}) vouch for no file: a searcher hashes every file it
 * reads once, then rewrites the record with the identities it saw ({@code rebound}) when it may write
 * the snapshot's directory. Older readers ignore the added fields and read a version 2 record as
 * they read version 1.
 *
 * <p>{@code versions} (optional, absent from records written before it and where the storage keeps
 * no version tokens): each file's {@link ObjectStat#version} on an object store when it was checked.
 * A build's publish, which does not hash the files its writers wrote, hashes each file it references
 * from an earlier snapshot unless the record of that file's owner (or of the build's base) holds the
 * token the store reports now ({@link #vouchesForVersion}; {@link ReferencedFilesPolicy}). Older
 * readers ignore it.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record VerifiedRecord(
    @JsonProperty("format_version") int formatVersion,
    @JsonProperty("manifest_sha256") String manifestSha256,
    @JsonProperty("verified") String verified,
    @JsonProperty("by") String by,
    @JsonProperty("files") long files,
    @JsonProperty("bytes") long bytes,
    @JsonProperty("identities") Map<String, FileIdentity> identities,
    @JsonProperty("rebound") String rebound,
    @JsonProperty("versions") Map<String, String> versions) {

  public static final int FORMAT_VERSION = 2;

  /**
   * A file modified this close to the moment its identity was recorded cannot be told apart from
   * the same file modified again in the same clock tick (file systems keep times in ticks of a few
   * milliseconds, or of one or two seconds on older ones): such an identity vouches for nothing and
   * the file is hashed at open, as git treats a "racily clean" index entry.
   */
  public static final Duration RACY = Duration.ofSeconds(2);

  public VerifiedRecord {
    identities = identities == null ? null : Collections.unmodifiableMap(new TreeMap<>(identities));
    versions = versions == null ? null : Collections.unmodifiableMap(new TreeMap<>(versions));
  }

  /** A record without version tokens (a local root's, or one written before them). */
  public VerifiedRecord(int formatVersion, String manifestSha256, String verified, String by, long files, long bytes,
      Map<String, FileIdentity> identities, String rebound) {
    this(formatVersion, manifestSha256, verified, by, files, bytes, identities, rebound, null);
  }

  /**
   * Whether this record vouches for the object store file {@code name} (relative to the snapshot) as
   * it is now: the record holds a version token for it and {@code now} equals it. No racy window
   * applies: a token is not a clock reading (an S3 ETag changes with the bytes, an HDFS file id with
   * every new file).
   *
   * @param now the token the store reports now, or null where it keeps none (then: never)
   */
  public boolean vouchesForVersion(String name, String now) {
    return versions != null && now != null && now.equals(versions.get(name));
  }

  /**
   * Whether this record vouches for the file {@code name} (relative to the snapshot) as it is now:
   * the record holds an identity for it, {@code now} is equal to it, and it was recorded more than
   * {@link #RACY} after the file's modification time, measured against {@code recordModifiedNanos},
   * the modification time of the record itself (same file system, same clock).
   *
   * @param now the file's identity now, or null where the storage has none (then: never)
   * @param recordModifiedNanos {@link Long#MIN_VALUE} when unknown (then: never)
   */
  public boolean vouchesFor(String name, FileIdentity now, long recordModifiedNanos) {
    if (identities == null || now == null || recordModifiedNanos == Long.MIN_VALUE) {
      return false;
    }
    FileIdentity then = identities.get(name);
    return now.equals(then) && then.modifiedNanos() <= recordModifiedNanos - RACY.toNanos();
  }
}
