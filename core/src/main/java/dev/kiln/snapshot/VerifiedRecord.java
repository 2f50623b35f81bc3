package dev.kiln.snapshot;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * {@code snapshots/ID/VERIFIED}: every file of the snapshot was read and matched the manifest whose
 * own SHA-256 is {@code manifest_sha256}, at {@code verified}, by {@code by} ({@code publish},
 * {@code download} or {@code verify}). A searcher that finds a record for the manifest it read checks
 * structure and sizes only instead of hashing every byte again; {@code kiln snapshots verify}
 * re-reads everything on demand. A record for another manifest is ignored.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record VerifiedRecord(
    @JsonProperty("format_version") int formatVersion,
    @JsonProperty("manifest_sha256") String manifestSha256,
    @JsonProperty("verified") String verified,
    @JsonProperty("by") String by,
    @JsonProperty("files") long files,
    @JsonProperty("bytes") long bytes) {

  public static final int FORMAT_VERSION = 1;
}
