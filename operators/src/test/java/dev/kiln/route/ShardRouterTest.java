package dev.kiln.route;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ShardRouterTest {
  /**
   * Pinned values: these must never change, or documents would move between shards from one build to
   * the next (and existing snapshots could not be updated in place). Computed when the format was
   * fixed; a failure here means the routing hash changed.
   */
  @Test
  void assignmentIsPinned() {
    int[] expected = {5, 1, 3, 5, 0, 3, 4, 6, 3, 5, 1, 1, 6, 3, 5, 3, 0, 2, 1, 4};
    for (int i = 0; i < expected.length; i++) {
      assertEquals(expected[i], ShardRouter.shardOf("doc-" + i, 7), "doc-" + i);
    }
    assertEquals(0x89525c897f4f4b75L, ShardRouter.hash64("kiln"));
  }

  /** FNV-1a 64 and the finaliser written out again from their published definitions, independently of ShardRouter. */
  private static long reference(String id) {
    BigInteger mod = BigInteger.ONE.shiftLeft(64);
    BigInteger h = new BigInteger("cbf29ce484222325", 16);
    BigInteger prime = new BigInteger("100000001b3", 16);
    for (byte b : id.getBytes(StandardCharsets.UTF_8)) {
      h = h.xor(BigInteger.valueOf(b & 0xff)).multiply(prime).mod(mod);
    }
    for (String m : new String[] {"ff51afd7ed558ccd", "c4ceb9fe1a85ec53", null}) {
      h = h.xor(h.shiftRight(33));
      if (m != null) {
        h = h.multiply(new BigInteger(m, 16)).mod(mod);
      }
    }
    return h.longValue();
  }

  @Test
  void shardDependsOnlyOnDocIdAndShardCount() {
    // Unsigned arithmetic on BigInteger, not Java's wrapping longs: the hash is defined by the bytes of
    // the id alone, and the shard by that hash modulo the shard count, never by the writer count.
    for (int i = 0; i < 1000; i++) {
      String id = "id-" + i;
      long h = reference(id);
      assertEquals(h, ShardRouter.hash64(id), id);
      int expected = new BigInteger(Long.toUnsignedString(h)).mod(BigInteger.valueOf(8)).intValue();
      assertEquals(expected, ShardRouter.shardOf(id, 8), id);
      for (int writers = 1; writers <= 8; writers++) {
        int writer = new ShardPartitioner().partition(expected, writers);
        assertEquals(expected % writers, writer, "shard " + expected + " goes to writer shard mod writers");
      }
    }
  }

  @Test
  void spreadsDocumentsEvenly() {
    int shards = 4;
    int[] counts = new int[shards];
    for (int i = 0; i < 40_000; i++) {
      counts[ShardRouter.shardOf("doc-" + i, shards)]++;
    }
    for (int c : counts) {
      assertTrue(Math.abs(c - 10_000) < 500, "uneven shard sizes " + Arrays.toString(counts));
    }
  }

  @Test
  void handlesNonAsciiIds() {
    // Hashed as UTF-8 bytes, whatever the JVM's default charset.
    for (String id : new String[] {"文档-1", "Ünïcødé", "emoji-\uD83D\uDE00"}) {
      assertEquals(reference(id), ShardRouter.hash64(id), id);
      assertEquals(Long.remainderUnsigned(reference(id), 3), ShardRouter.shardOf(id, 3), id);
    }
  }
}
