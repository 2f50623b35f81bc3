package dev.kiln.ingest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridEncoder;
import org.junit.jupiter.api.Test;

class LevelRunsTest {
  private static byte[] encode(int[] levels, int bitWidth) throws Exception {
    RunLengthBitPackingHybridEncoder e =
        new RunLengthBitPackingHybridEncoder(bitWidth, 64, 1 << 20, new HeapByteBufferAllocator());
    for (int v : levels) {
      e.writeInt(v);
    }
    return e.toBytes().toByteArray();
  }

  @Test
  void decodesWhatParquetsEncoderWritesForEveryWidthAndRunShape() throws Exception {
    Random random = new Random(3);
    for (int bitWidth : new int[] {1, 2, 3, 5, 8, 9, 13, 20}) {
      for (int round = 0; round < 40; round++) {
        int count = 1 + random.nextInt(3_000);
        int[] levels = new int[count];
        int max = (1 << bitWidth) - 1;
        for (int i = 0; i < count; ) {
          // long runs (RLE), short mixed stretches (bit-packed), and list-like 0,1,1,...,1 patterns
          int shape = random.nextInt(3);
          int len = Math.min(count - i, 1 + random.nextInt(shape == 0 ? 500 : 12));
          int v = random.nextInt(max + 1);
          for (int j = 0; j < len; j++, i++) {
            levels[i] = shape == 0 ? v : shape == 1 ? random.nextInt(max + 1) : (j == 0 ? 0 : Math.min(1, max));
          }
        }
        int[] out = new int[count + 5];
        Arrays.fill(out, -1);
        LevelRuns.decode(ByteBuffer.wrap(encode(levels, bitWidth)), bitWidth, out, count);
        assertArrayEquals(levels, Arrays.copyOf(out, count), "width " + bitWidth + " round " + round);
        assertArrayEquals(new int[] {-1, -1, -1, -1, -1}, Arrays.copyOfRange(out, count, count + 5), "nothing past count");
      }
    }
  }

  @Test
  void runsThatEndEarlyOrNeverAdvanceThrowInsteadOfLooping() throws Exception {
    int[] levels = new int[1_000];
    for (int i = 0; i < levels.length; i++) {
      levels[i] = i % 7 == 0 ? 0 : 1;
    }
    byte[] bytes = encode(levels, 1);
    int[] out = new int[1_000];
    assertThrows(RuntimeException.class,
        () -> LevelRuns.decode(ByteBuffer.wrap(Arrays.copyOf(bytes, bytes.length / 2)), 1, out, 1_000));
    // headers of empty runs, forever: the buffer ends, the decoder does not spin
    assertThrows(RuntimeException.class, () -> LevelRuns.decode(ByteBuffer.wrap(new byte[64]), 1, out, 10));
    assertThrows(RuntimeException.class,
        () -> LevelRuns.decode(ByteBuffer.wrap(new byte[] {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80,
            (byte) 0x80, 1}), 1, out, 10));
  }
}
