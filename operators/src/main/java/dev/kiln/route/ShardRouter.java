package dev.kiln.route;

import java.nio.charset.StandardCharsets;

/**
 * Decides a document's shard: {@code hash(docId) mod shards}, with a hash fixed by this class (not
 * {@link String#hashCode()} or anything JVM- or parallelism-dependent), so a document stays in its
 * shard across runs, machines and job parallelism. Changing the hash is a format change.
 */
public final class ShardRouter {
  private ShardRouter() {}

  public static int shardOf(String docId, int shards) {
    return (int) Long.remainderUnsigned(hash64(docId), shards);
  }

  /** FNV-1a over the UTF-8 bytes, then a 64-bit finaliser so that the low bits are well mixed. */
  static long hash64(String s) {
    long h = 0xcbf29ce484222325L;
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      h ^= b & 0xff;
      h *= 0x100000001b3L;
    }
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    h ^= h >>> 33;
    return h;
  }
}
