package dev.kiln.snapshot.io;

import dev.kiln.snapshot.ObjectStat;
import dev.kiln.snapshot.SnapshotStorage;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * {@link SnapshotStorage} on S3 (AWS or an S3-compatible server), through the AWS SDK v2 with the
 * JDK's HTTP client. A PUT is atomic (readers see the old object or the whole new one), so
 * {@link #write} needs no temporary name; {@link #compareAndSet} is a conditional PUT —
 * {@code If-None-Match: *} when the object must not exist, {@code If-Match: <ETag read>} otherwise —
 * and a {@code 412 Precondition Failed} (or {@code 409 ConditionalRequestConflict}) means another writer
 * won.
 *
 * <p>With {@code s3.conditional-writes: false} (a store that rejects the headers), or when the store
 * answers {@code 501 Not Implemented} to them, compare-and-set falls back to reading and comparing
 * just before an unconditional PUT; two writers can then both pass the comparison, and only the
 * publisher's read-back after the write reports the loser (docs/FORMATS.md says what that guarantees).
 *
 * <p>Every request is retried by the SDK, up to {@code s3.max-attempts} attempts in all with an
 * exponential back-off ({@link S3Clients#retryStrategy}), on what S3 means to be retried: a 5xx, {@code SlowDown}
 * and the other throttling answers, a connection that broke or timed out. A body read after the call
 * returned ({@link #open}) resumes where it broke ({@link S3ObjectStream}). A retried conditional PUT
 * can be refused because its own earlier attempt was carried out and only the answer was lost: so a
 * refusal, or a failure after the last attempt, is followed by a read of the object, and if it holds
 * exactly the bytes written, the write was ours and counts as done (the bytes written to
 * {@code CURRENT} name the new snapshot, and a lock's name its holder with a random nonce: no other
 * writer writes the same).
 */
public final class S3SnapshotStorage implements SnapshotStorage, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(S3SnapshotStorage.class);

  private final S3Client s3;
  private final String bucket;
  /** Key prefix of the root inside the bucket: empty, or ending in {@code /}. */
  private final String prefix;
  private final String root;
  /** Compare-and-set and lock creation, with their fallback and their recovery of a lost answer. */
  private final S3ConditionalWrites conditionalWrites;
  private final int maxAttempts;
  private final S3Lock locks = new S3Lock(this);
  /** Test seam: runs between compare-and-set's read and its write, to make a race deterministic. */
  volatile Runnable betweenReadAndWrite = () -> {};

  S3SnapshotStorage(S3Client s3, String root, boolean conditionalWrites, int maxAttempts) {
    this.s3 = s3;
    this.maxAttempts = maxAttempts;
    this.root = root;
    URI uri = URI.create(root);
    if (uri.getHost() == null || uri.getHost().isBlank()) {
      throw new IllegalArgumentException("S3 snapshots root needs a bucket: s3://BUCKET/PREFIX, was " + root);
    }
    this.bucket = uri.getHost();
    String path = uri.getPath() == null ? "" : uri.getPath().replaceAll("^/+|/+$", "");
    this.prefix = path.isEmpty() ? "" : path + "/";
    this.conditionalWrites = new S3ConditionalWrites(this, s3, bucket, conditionalWrites);
  }

  /** A storage for {@code root} ({@code s3://BUCKET/PREFIX}) with its own client. */
  public static S3SnapshotStorage open(String root, S3Settings settings) {
    LOG.info("S3 snapshots root {}: {}", root, settings);
    return new S3SnapshotStorage(client(settings), root, settings.conditionalWrites(), settings.maxAttempts());
  }

  /** The client {@link #open} uses ({@link S3Clients#client}). */
  static S3Client client(S3Settings settings) {
    return S3Clients.client(settings);
  }

  /** Whether compare-and-set uses conditional PUT (false: the read-compare-write fallback). */
  public boolean conditionalWrites() {
    return conditionalWrites.enabled();
  }

  public String root() {
    return root;
  }

  /** The object key of {@code key} under the root; refuses a key that would escape it. */
  String key(String key) {
    if (key.startsWith("/") || key.contains("..") || key.contains("//") || key.contains("\\")) {
      throw new IllegalArgumentException("key escapes the snapshots root: " + key);
    }
    return prefix + key;
  }

  @Override
  public Optional<byte[]> read(String key) throws IOException {
    return readWithETag(key).map(Versioned::bytes);
  }

  /** An object's bytes with the ETag they were read under. */
  record Versioned(byte[] bytes, String etag) {}

  Optional<Versioned> readWithETag(String key) throws IOException {
    try {
      ResponseBytes<GetObjectResponse> r = s3.getObjectAsBytes(b -> b.bucket(bucket).key(key(key)));
      return Optional.of(new Versioned(r.asByteArray(), r.response().eTag()));
    } catch (S3Exception e) {
      if (e.statusCode() == 404) {
        return Optional.empty();
      }
      throw io("read", key, e);
    } catch (SdkException e) {
      throw io("read", key, e);
    }
  }

  /**
   * A stream over the object that survives a broken connection: a read that fails midway opens the
   * object again from where it broke, on the same version ({@link S3ObjectStream}).
   */
  @Override
  public InputStream open(String key) throws IOException {
    return new S3ObjectStream(root + "/" + key, get(key, 0, null), (offset, etag) -> get(key, offset, etag),
        maxAttempts);
  }

  /** The object from {@code offset} on; with {@code etag}, only that version of it. */
  private ResponseInputStream<GetObjectResponse> get(String key, long offset, String etag) throws IOException {
    try {
      return s3.getObject(b -> {
        b.bucket(bucket).key(key(key));
        if (offset > 0) {
          b.range("bytes=" + offset + "-");
        }
        if (etag != null) {
          b.ifMatch(etag);
        }
      });
    } catch (S3Exception e) {
      if (e.statusCode() == 404) {
        throw etag == null ? new NoSuchFileException(root + "/" + key)
            : new S3ObjectStream.ObjectChangedException(root + "/" + key + " was removed", e);
      }
      if (etag != null && e.statusCode() == 412) {
        throw new S3ObjectStream.ObjectChangedException(root + "/" + key + " no longer has the ETag " + etag, e);
      }
      throw io("open", key, e);
    } catch (SdkException e) {
      throw io("open", key, e);
    }
  }

  private HeadObjectResponse head(String key) throws IOException {
    try {
      return s3.headObject(b -> b.bucket(bucket).key(key(key)));
    } catch (S3Exception e) {
      if (e.statusCode() == 404) {
        throw new NoSuchFileException(root + "/" + key);
      }
      throw io("stat", key, e);
    } catch (SdkException e) {
      throw io("stat", key, e);
    }
  }

  @Override
  public long size(String key) throws IOException {
    return head(key).contentLength();
  }

  /**
   * Size and version token from one HEAD: the ETag (the MD5 of a single-part object's bytes, or a
   * value new with every upload), Last-Modified, the size and, in a versioned bucket, the version id.
   * A replaced object changes the ETag (other bytes) or at least Last-Modified and the version id.
   */
  @Override
  public ObjectStat stat(String key) throws IOException {
    HeadObjectResponse h = head(key);
    long size = h.contentLength();
    StringBuilder token = new StringBuilder("etag=").append(h.eTag()).append(";modified=")
        .append(h.lastModified() == null ? "?" : h.lastModified().toString()).append(";size=").append(size);
    if (h.versionId() != null && !"null".equals(h.versionId())) {
      token.append(";version-id=").append(h.versionId());
    }
    return new ObjectStat(size, h.eTag() == null ? null : token.toString());
  }

  @Override
  public boolean exists(String key) throws IOException {
    try {
      head(key);
      return true;
    } catch (NoSuchFileException e) {
      return false;
    }
  }

  @Override
  public void write(String key, byte[] data) throws IOException {
    try {
      s3.putObject(b -> b.bucket(bucket).key(key(key)), RequestBody.fromBytes(data));
    } catch (SdkException e) {
      throw io("write", key, e);
    }
  }

  /** Uploads a local file as one object (immutable snapshot files). */
  public void upload(String key, Path file) throws IOException {
    try {
      s3.putObject(b -> b.bucket(bucket).key(key(key)), RequestBody.fromFile(file));
    } catch (SdkException e) {
      throw io("upload", key, e);
    }
  }

  /** A conditional PUT, or read-compare-write where the store cannot ({@link S3ConditionalWrites}). */
  @Override
  public boolean compareAndSet(String key, byte[] expected, byte[] update) throws IOException {
    return conditionalWrites.compareAndSet(key, expected, update);
  }

  /**
   * Holds {@code KEY.lock} around the action ({@link S3Lock}): an object created with
   * {@code If-None-Match: *}, taken over when older than {@link S3Lock#STALE_LOCK}.
   */
  @Override
  public <T> T locked(String key, LockedAction<T> action) throws IOException {
    return locks.locked(key, action);
  }

  /** Creates the lock object only if it does not exist; false when it does ({@link S3ConditionalWrites}). */
  boolean tryCreate(String lockKey, byte[] body) throws IOException {
    return conditionalWrites.tryCreate(lockKey, body);
  }

  @Override
  public List<String> list(String dir) throws IOException {
    String p = key(dir.endsWith("/") ? dir : dir + "/");
    TreeSet<String> names = new TreeSet<>();
    try {
      String token = null;
      do {
        ListObjectsV2Request.Builder req = ListObjectsV2Request.builder().bucket(bucket).prefix(p).delimiter("/");
        if (token != null) {
          req.continuationToken(token);
        }
        ListObjectsV2Response r = s3.listObjectsV2(req.build());
        for (CommonPrefix cp : r.commonPrefixes()) {
          names.add(cp.prefix().substring(p.length()).replaceAll("/+$", ""));
        }
        for (S3Object o : r.contents()) {
          names.add(o.key().substring(p.length()));
        }
        token = Boolean.TRUE.equals(r.isTruncated()) ? r.nextContinuationToken() : null;
      } while (token != null);
    } catch (SdkException e) {
      throw io("list", dir, e);
    }
    names.remove("");
    return new ArrayList<>(names);
  }

  @Override
  public void delete(String key) throws IOException {
    try {
      s3.deleteObject(b -> b.bucket(bucket).key(key(key)));
    } catch (S3Exception e) {
      if (e.statusCode() != 404) {
        throw io("delete", key, e);
      }
    } catch (SdkException e) {
      throw io("delete", key, e);
    }
  }

  @Override
  public void deleteTree(String dir) throws IOException {
    String p = key(dir.endsWith("/") ? dir : dir + "/");
    List<String> keys = new ArrayList<>();
    try {
      s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(p)).contents().forEach(o -> keys.add(o.key()));
    } catch (SdkException e) {
      throw io("list", dir, e);
    }
    // One DELETE per object: a snapshot has a few dozen files, and not every S3-compatible server
    // accepts multi-object delete. Deepest first: a store that keeps directory markers (s3proxy on a file
    // system) refuses, slowly, to remove a directory that still holds objects.
    keys.sort(Comparator.reverseOrder());
    for (String k : keys) {
      delete(k.substring(prefix.length()));
    }
  }

  @Override
  public long lastModified(String key) throws IOException {
    try {
      Instant t = head(key).lastModified();
      return t == null ? -1 : t.toEpochMilli();
    } catch (NoSuchFileException e) {
      return -1;
    }
  }

  IOException io(String what, String key, Exception e) {
    return new IOException("cannot " + what + " " + root + "/" + key + ": " + e.getMessage(), e);
  }

  @Override
  public void close() {
    s3.close();
  }
}
