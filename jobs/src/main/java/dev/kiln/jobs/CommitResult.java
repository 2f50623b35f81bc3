package dev.kiln.jobs;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotStore;

/**
 * What the committer did (with, when it published, how many of the files its manifest references from
 * earlier snapshots it hashed at publish, and their bytes), handed to an attached client through the {@link #ACCUMULATOR} accumulator
 * (as JSON: accumulators must be serialisable, and the manifest is JSON already).
 */
record CommitResult(
    @JsonProperty("snapshot") String snapshotId,
    @JsonProperty("published") boolean published,
    @JsonProperty("manifest") Manifest manifest,
    @JsonProperty("min_recall") double minRecall,
    @JsonProperty("segments_before") int segmentsBefore,
    @JsonProperty("segments_after") int segmentsAfter,
    @JsonProperty("commit_millis") long commitMillis,
    @JsonProperty("referenced_files") long referencedFiles,
    @JsonProperty("referenced_hashed") long referencedHashed,
    @JsonProperty("referenced_hashed_bytes") long referencedHashedBytes) {

  static final String ACCUMULATOR = "kiln.commit";

  String toJson() {
    try {
      return SnapshotStore.json().writeValueAsString(this);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  static CommitResult fromJson(String json) {
    try {
      return SnapshotStore.json().readValue(json, CommitResult.class);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("unreadable commit result: " + e.getMessage(), e);
    }
  }
}
