package dev.kiln.chunk;

import dev.kiln.snapshot.Checksums;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;

/**
 * Content keys: SHA-256 (first 128 bits, hex) of the chunker fingerprint and the chunk's embedding
 * input. The embedding input is hashed rather than the bare chunk text because it is what the model
 * sees: two chunks with one text under different headings embed differently. Equal keys therefore
 * mean an equal embedding for one model, which is what lets a later build reuse it.
 */
public final class ContentKeys {
  private ContentKeys() {}

  public static String of(String fingerprint, String embeddingInput) {
    MessageDigest digest = Checksums.newDigest();
    digest.update(fingerprint.getBytes(StandardCharsets.UTF_8));
    digest.update((byte) 0);
    digest.update(embeddingInput.getBytes(StandardCharsets.UTF_8));
    return HexFormat.of().formatHex(digest.digest(), 0, 16);
  }
}
