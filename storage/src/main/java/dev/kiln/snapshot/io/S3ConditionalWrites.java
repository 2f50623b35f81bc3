package dev.kiln.snapshot.io;

import java.io.IOException;
import java.util.Arrays;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The conditional writes of an {@link S3SnapshotStorage}: compare-and-set ({@code If-Match} on the
 * ETag read, {@code If-None-Match: *} when the object must not exist) and lock creation. A store that
 * answers {@code 501} to the headers turns them off for good (read-compare-write from then on). A
 * refusal, or a failure after the last attempt, reads the object back: if it holds exactly the bytes
 * written, an earlier attempt of this very write was carried out and only its answer was lost. Apart
 * from the storage because this recovery, not the plain requests, is what needs care and review.
 * Thread-safe.
 */
final class S3ConditionalWrites {
  private static final Logger LOG = LoggerFactory.getLogger(S3ConditionalWrites.class);

  private final S3SnapshotStorage storage;
  private final S3Client s3;
  private final String bucket;
  private volatile boolean conditional;

  S3ConditionalWrites(S3SnapshotStorage storage, S3Client s3, String bucket, boolean conditional) {
    this.storage = storage;
    this.s3 = s3;
    this.bucket = bucket;
    this.conditional = conditional;
  }

  /** Whether compare-and-set uses conditional PUT (false: the read-compare-write fallback). */
  boolean enabled() {
    return conditional;
  }

  /** @see S3SnapshotStorage#compareAndSet */
  boolean compareAndSet(String key, byte[] expected, byte[] update) throws IOException {
    Optional<S3SnapshotStorage.Versioned> now = storage.readWithETag(key);
    if (!Arrays.equals(now.map(S3SnapshotStorage.Versioned::bytes).orElse(null), expected)) {
      return false;
    }
    storage.betweenReadAndWrite.run();
    if (!conditional) {
      storage.write(key, update); // fallback: the caller's read-back reports a race lost in between
      return true;
    }
    PutObjectRequest.Builder put = PutObjectRequest.builder().bucket(bucket).key(storage.key(key));
    if (now.isEmpty()) {
      put.ifNoneMatch("*");
    } else {
      put.ifMatch(now.get().etag());
    }
    try {
      s3.putObject(put.build(), RequestBody.fromBytes(update));
      return true;
    } catch (S3Exception e) {
      if (e.statusCode() == 412 || e.statusCode() == 409) {
        // Refused: another writer changed it, or an earlier attempt of this very PUT did (its answer lost).
        if (holds(key, update)) {
          LOG.info("conditional PUT of {} refused ({}) on a retry: an earlier attempt was carried out", key,
              e.statusCode());
          return true;
        }
        LOG.info("conditional PUT of {} refused ({}): another writer changed it", key, e.statusCode());
        return false;
      }
      if (e.statusCode() == 501) {
        LOG.warn("{} does not implement conditional PUT: compare-and-set of {} falls back to read-compare-write"
            + " (set {}: false to skip this attempt)", storage.root(), key, S3Settings.CONDITIONAL_WRITES);
        conditional = false;
        return compareAndSet(key, expected, update);
      }
      return carriedOut(key, update, "conditionally write", e);
    } catch (SdkException e) {
      return carriedOut(key, update, "conditionally write", e);
    }
  }

  /**
   * After a conditional PUT whose last attempt failed without a refusal: true if one of its attempts
   * was carried out after all (the object holds exactly {@code update}), else the failure.
   */
  private boolean carriedOut(String key, byte[] update, String what, SdkException e) throws IOException {
    IOException failure = storage.io(what, key, e);
    try {
      if (holds(key, update)) {
        LOG.warn("{} {}/{} failed ({}), but the object holds what it wrote: an attempt was carried out", what,
            storage.root(), key, e.getMessage());
        return true;
      }
    } catch (IOException again) {
      failure.addSuppressed(again);
    }
    throw failure;
  }

  /** Whether the object exists and holds exactly {@code bytes}. */
  private boolean holds(String key, byte[] bytes) throws IOException {
    return storage.readWithETag(key).map(v -> Arrays.equals(v.bytes(), bytes)).orElse(false);
  }

  /**
   * Creates the object only if it does not exist; false when it does. A refusal, or a failure after
   * the last attempt, reads the object: if it holds {@code body}, an earlier attempt of this create was
   * carried out and its answer lost, and the lock is ours.
   */
  boolean tryCreate(String lockKey, byte[] body) throws IOException {
    if (!conditional) {
      if (storage.exists(lockKey)) {
        return false;
      }
      storage.write(lockKey, body);
      return true;
    }
    try {
      s3.putObject(PutObjectRequest.builder().bucket(bucket).key(storage.key(lockKey)).ifNoneMatch("*").build(),
          RequestBody.fromBytes(body));
      return true;
    } catch (S3Exception e) {
      if (e.statusCode() == 412 || e.statusCode() == 409) {
        return holds(lockKey, body);
      }
      if (e.statusCode() == 501) {
        conditional = false;
        return tryCreate(lockKey, body);
      }
      return createdAfterAll(lockKey, body, e);
    } catch (SdkException e) {
      // Also a server that refuses the conditional PUT before reading its body (412 to "Expect:
      // 100-continue"), which the client reports as a broken write: whoever's lock is there decides.
      return createdAfterAll(lockKey, body, e);
    }
  }

  /** After a create that failed: true if the lock there is ours, false if another's, else the failure. */
  private boolean createdAfterAll(String lockKey, byte[] body, SdkException e) throws IOException {
    IOException failure = storage.io("create lock", lockKey, e);
    Optional<byte[]> there;
    try {
      there = storage.read(lockKey);
    } catch (IOException again) {
      failure.addSuppressed(again);
      throw failure;
    }
    if (there.isPresent()) {
      return Arrays.equals(there.get(), body);
    }
    throw failure;
  }
}
