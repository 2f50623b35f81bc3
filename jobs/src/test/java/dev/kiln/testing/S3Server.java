package dev.kiln.testing;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStore;
import org.jclouds.blobstore.BlobStoreContext;
import org.jclouds.blobstore.domain.Blob;

/**
 * A real S3-compatible server for tests: s3proxy in this JVM on 127.0.0.1 (ephemeral port) over a
 * filesystem blob store in {@code dir}, with one bucket. The blob store is also reachable directly,
 * so a test can read or damage objects behind the server's back.
 */
public final class S3Server implements AutoCloseable {
  public static final String ACCESS = "kiln-access";
  public static final String SECRET = "kiln-secret";

  private final BlobStoreContext context;
  private final S3Proxy proxy;
  private final String bucket;

  public S3Server(Path dir, String bucket) throws Exception {
    this.bucket = bucket;
    Properties props = new Properties();
    props.setProperty("jclouds.filesystem.basedir", Files.createDirectories(dir).toString());
    context = ContextBuilder.newBuilder("filesystem").overrides(props).build(BlobStoreContext.class);
    context.getBlobStore().createContainerInLocation(null, bucket);
    proxy = S3Proxy.builder().blobStore(context.getBlobStore()).endpoint(URI.create("http://127.0.0.1:0"))
        .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS, SECRET).build();
    proxy.start();
    while (!"STARTED".equals(proxy.getState())) {
      Thread.onSpinWait();
    }
  }

  /** The {@code filesystem:} settings (Flink S3 plugin keys) that reach this server. */
  public Map<String, String> settings() {
    return Map.of("s3.endpoint", "http://127.0.0.1:" + proxy.getPort(), "s3.path.style.access", "true",
        "s3.access-key", ACCESS, "s3.secret-key", SECRET);
  }

  public BlobStore blobs() {
    return context.getBlobStore();
  }

  public void put(String key, byte[] bytes) {
    blobs().putBlob(bucket, blobs().blobBuilder(key).payload(bytes).contentLength(bytes.length).build());
  }

  /** Uploads {@code file} as {@code key}, streamed from the disk. */
  public void putFile(String key, Path file) throws IOException {
    blobs().putBlob(bucket, blobs().blobBuilder(key).payload(file.toFile()).contentLength(Files.size(file)).build());
  }

  public byte[] bytes(String key) throws Exception {
    Blob b = blobs().getBlob(bucket, key);
    if (b == null) {
      return null;
    }
    try (InputStream in = b.getPayload().openStream()) {
      return in.readAllBytes();
    }
  }

  public String get(String key) throws Exception {
    byte[] b = bytes(key);
    return b == null ? null : new String(b, StandardCharsets.UTF_8);
  }

  @Override
  public void close() throws Exception {
    proxy.stop();
    context.close();
  }
}
