package dev.kiln.bench.scale;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import org.apache.lucene.util.VectorUtil;

/**
 * Ground truth for recall: the exact top k by dot product over every corpus vector, scanned from the
 * float32 file the corpus writer left ({@code n × dim}, little-endian, id order), in blocks so that
 * nothing is held whole; all queries are scored against one block before the next is read.
 */
final class ExactTopK {
  private ExactTopK() {}

  /** @return for each query, the indexes of its k nearest vectors, best first */
  static List<int[]> search(Path vectors, int dim, List<float[]> queries, int k) throws IOException {
    List<PriorityQueue<long[]>> heaps = new ArrayList<>();
    for (int q = 0; q < queries.size(); q++) {
      heaps.add(new PriorityQueue<>((a, b) -> Float.compare(Float.intBitsToFloat((int) a[1]),
          Float.intBitsToFloat((int) b[1]))));
    }
    try (FileChannel ch = FileChannel.open(vectors, StandardOpenOption.READ)) {
      long rows = ch.size() / (4L * dim);
      long block = 65_536;
      float[] v = new float[dim];
      for (long start = 0; start < rows; start += block) {
        long count = Math.min(block, rows - start);
        FloatBuffer fb = ch.map(FileChannel.MapMode.READ_ONLY, start * 4L * dim, count * 4L * dim)
            .order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
        for (int r = 0; r < count; r++) {
          fb.get(r * dim, v);
          for (int q = 0; q < queries.size(); q++) {
            float s = VectorUtil.dotProduct(queries.get(q), v);
            PriorityQueue<long[]> h = heaps.get(q);
            if (h.size() < k) {
              h.add(new long[] {start + r, Float.floatToIntBits(s)});
            } else if (s > Float.intBitsToFloat((int) h.peek()[1])) {
              h.poll();
              h.add(new long[] {start + r, Float.floatToIntBits(s)});
            }
          }
        }
      }
    }
    List<int[]> out = new ArrayList<>();
    for (PriorityQueue<long[]> h : heaps) {
      int[] ids = new int[h.size()];
      for (int i = ids.length - 1; i >= 0; i--) {
        ids[i] = (int) h.poll()[0];
      }
      out.add(ids);
    }
    return out;
  }
}
