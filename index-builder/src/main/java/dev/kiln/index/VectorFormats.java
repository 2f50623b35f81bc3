package dev.kiln.index;

import dev.kiln.config.VectorEncoding;
import org.apache.lucene.codecs.KnnVectorsFormat;
import org.apache.lucene.codecs.lucene104.Lucene104HnswScalarQuantizedVectorsFormat;
import org.apache.lucene.codecs.lucene99.Lucene99HnswVectorsFormat;
import org.apache.lucene.util.quantization.QuantizedByteVectorValues.ScalarEncoding;

/**
 * The Lucene vectors format of each {@link VectorEncoding}. Lucene 10.6 has one quantised HNSW format,
 * {@link Lucene104HnswScalarQuantizedVectorsFormat} (optimised scalar quantisation), whose bits are a
 * {@link ScalarEncoding}; it keeps the float32 vectors beside the quantised ones, which is what
 * rescoring reads. Formats are found by name when a segment is opened, so readers need no setting.
 */
public final class VectorFormats {
  private VectorFormats() {}

  public static KnnVectorsFormat forEncoding(VectorEncoding encoding, int m, int beamWidth) {
    return switch (encoding) {
      case FLOAT32 -> new Lucene99HnswVectorsFormat(m, beamWidth);
      case INT8 -> new Lucene104HnswScalarQuantizedVectorsFormat(ScalarEncoding.UNSIGNED_BYTE, m, beamWidth);
      case INT4 -> new Lucene104HnswScalarQuantizedVectorsFormat(ScalarEncoding.PACKED_NIBBLE, m, beamWidth);
      // Lucene's BBQ: one bit per dimension for documents, four for the query.
      case BINARY -> new Lucene104HnswScalarQuantizedVectorsFormat(ScalarEncoding.SINGLE_BIT_QUERY_NIBBLE, m,
          beamWidth);
    };
  }
}
