package dev.kiln.ingest;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.apache.parquet.column.values.bitpacking.BytePacker;
import org.apache.parquet.column.values.bitpacking.Packer;
import org.apache.parquet.io.ParquetDecodingException;

/**
 * Parquet's RLE / bit-packing hybrid encoding of repetition and definition levels, decoded a page at a
 * time into an array (Parquet's own decoder hands them out one call per value; its bit unpacker is used
 * here for the packed groups). The runs: a varint
 * header whose low bit is 0 for a run of one value repeated ({@code header >>> 1} times, the value in
 * as many little-endian bytes as its bit width needs), 1 for groups of eight bit-packed values
 * ({@code header >>> 1} groups, least significant bit first). Values past {@code count} in the last
 * group are padding.
 */
final class LevelRuns {
  private LevelRuns() {}

  /**
   * Decodes {@code count} levels of {@code bitWidth} bits from {@code in} into {@code out}.
   *
   * @throws ParquetDecodingException or {@code BufferUnderflowException} when the runs are malformed
   *     or end early
   */
  static void decode(ByteBuffer in, int bitWidth, int[] out, int count) {
    if (bitWidth < 0 || bitWidth > 32) {
      throw new ParquetDecodingException("level bit width " + bitWidth);
    }
    int byteWidth = (bitWidth + 7) / 8;
    BytePacker packer = Packer.LITTLE_ENDIAN.newBytePacker(bitWidth);
    int[] group = new int[8];
    int n = 0;
    while (n < count) {
      int header = varint(in);
      if ((header & 1) == 0) {
        int value = 0;
        for (int i = 0; i < byteWidth; i++) {
          value |= (in.get() & 0xFF) << (8 * i);
        }
        int end = (int) Math.min(count, (long) n + (header >>> 1));
        Arrays.fill(out, n, end, value);
        n = end;
      } else {
        // groups of eight values in bitWidth bytes, unpacked by Parquet's own packer
        int groups = header >>> 1;
        for (int g = 0; g < groups; g++) {
          if (in.remaining() < bitWidth) {
            throw new ParquetDecodingException("bit-packed levels end early");
          }
          int take = Math.min(8, count - n);
          if (take == 8) {
            packer.unpack8Values(in, in.position(), out, n);
          } else if (take > 0) {
            packer.unpack8Values(in, in.position(), group, 0);
            System.arraycopy(group, 0, out, n, take);
          }
          in.position(in.position() + bitWidth);
          n += Math.max(take, 0);
        }
      }
    }
  }

  private static int varint(ByteBuffer in) {
    int value = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      int b = in.get() & 0xFF;
      value |= (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return value;
      }
    }
    throw new ParquetDecodingException("level run header longer than five bytes");
  }
}
