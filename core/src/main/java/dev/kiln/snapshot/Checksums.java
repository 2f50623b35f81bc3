package dev.kiln.snapshot;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 of files, streamed. */
public final class Checksums {
  private Checksums() {}

  public static String sha256(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return sha256(in);
    }
  }

  /** SHA-256 (hex) of everything left in {@code in}; the caller closes the stream. */
  public static String sha256(InputStream in) throws IOException {
    MessageDigest digest = newDigest();
    byte[] buf = new byte[1 << 16];
    int n;
    while ((n = in.read(buf)) > 0) {
      digest.update(buf, 0, n);
    }
    return HexFormat.of().formatHex(digest.digest());
  }

  /** SHA-256 (hex) of a small byte array (a manifest). */
  public static String sha256(byte[] bytes) {
    return HexFormat.of().formatHex(newDigest().digest(bytes));
  }

  public static MessageDigest newDigest() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every JVM", e);
    }
  }
}
