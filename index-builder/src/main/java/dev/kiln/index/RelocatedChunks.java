package dev.kiln.index;

import dev.kiln.model.DocumentFingerprint;
import dev.kiln.model.RecordPosition;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.IntConsumer;
import org.apache.lucene.codecs.DocValuesProducer;
import org.apache.lucene.codecs.FieldsProducer;
import org.apache.lucene.codecs.StoredFieldsReader;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.CodecReader;
import org.apache.lucene.index.DocValuesSkipper;
import org.apache.lucene.index.DocValuesType;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.FieldInfos;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.SlowCodecReaderWrapper;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.index.SortedSetDocValues;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.FixedBitSet;

/**
 * Some chunks of a base segment, seen with another record position ({@link ShardSchema#SOURCE},
 * {@link ShardSchema#SOURCE_OFFSET}) than the segment stores for them: what a shard writer copies
 * ({@link ShardIndexWriter#addCopies}) when an unchanged document's record was read from another file
 * than the base records — moved between files by a re-partitioned export, or kept from a changelog
 * build. Lucene updates numeric and binary doc values in place, not sorted ones, so the chunks are
 * copied into a segment of their own (their base copies deleted first) with every other field as it
 * was: text, stored fields, fingerprint, vector (its graph built anew for the copies alone) — except
 * the provenance metadata {@code source_uri}, stored and indexed for filters ({@value #META_SOURCE}),
 * which names the file the record now lies in, so that a hit cites where its document is and a filter
 * on the new file finds it. (The file's {@code modified} time is not known here and stays the one the
 * content was last indexed with, as for every unchanged document.)
 */
public final class RelocatedChunks extends OnlyDocs {
  /** Where each copied chunk's record now is. */
  @FunctionalInterface
  public interface Positions {
    RecordPosition of(int doc);
  }

  /** The keyword field of the {@code source_uri} metadata. */
  static final String META_SOURCE = ShardSchema.META_PREFIX + DocumentFingerprint.SOURCE_URI;

  private final FixedBitSet chunks;
  private final Positions positions;
  /** {@link #META_SOURCE}'s postings for the copies, or {@code null} when the segment has no such field. */
  private final KeywordPostings metaSources;
  /** The new files, sorted as Lucene sorts terms (UTF-8 bytes), and each one's ord. */
  private final BytesRef[] files;
  private final Map<String, Integer> ordOf = new HashMap<>();

  private RelocatedChunks(CodecReader in, FixedBitSet chunks, Positions positions) throws IOException {
    super(in, chunks, chunks.cardinality());
    this.chunks = chunks;
    this.positions = positions;
    TreeSet<BytesRef> sorted = new TreeSet<>();
    forEach(doc -> sorted.add(new BytesRef(positions.of(doc).sourceUri())));
    this.files = sorted.toArray(new BytesRef[0]);
    for (int i = 0; i < files.length; i++) {
      ordOf.put(files[i].utf8ToString(), i);
    }
    this.metaSources = metaSources(in);
  }

  /** The copies that carry the {@code source_uri} metadata, under the file each now lies in. */
  private KeywordPostings metaSources(CodecReader in) throws IOException {
    Terms base = in.terms(META_SOURCE);
    if (base == null) {
      return null;
    }
    FixedBitSet carrying = new FixedBitSet(chunks.length());
    TermsEnum te = base.iterator();
    PostingsEnum pe = null;
    for (BytesRef term = te.next(); term != null; term = te.next()) {
      pe = te.postings(pe, PostingsEnum.NONE);
      for (int d = pe.nextDoc(); d != DocIdSetIterator.NO_MORE_DOCS; d = pe.nextDoc()) {
        if (d < chunks.length() && chunks.get(d)) {
          carrying.set(d);
        }
      }
    }
    List<List<Integer>> byOrd = new ArrayList<>();
    for (int i = 0; i < files.length; i++) {
      byOrd.add(new ArrayList<>());
    }
    forEach(doc -> {
      if (carrying.get(doc)) {
        byOrd.get(ordOf.get(positions.of(doc).sourceUri())).add(doc);
      }
    });
    List<BytesRef> terms = new ArrayList<>();
    List<int[]> docs = new ArrayList<>();
    for (int i = 0; i < files.length; i++) {
      if (!byOrd.get(i).isEmpty()) {
        terms.add(files[i]);
        docs.add(byOrd.get(i).stream().mapToInt(Integer::intValue).toArray());
      }
    }
    return new KeywordPostings(terms.toArray(new BytesRef[0]), docs.toArray(new int[0][]));
  }

  /**
   * The chunks set in {@code chunks} (live ones of {@code leaf}) at their new positions.
   *
   * @throws IllegalArgumentException when {@code leaf} has no record position fields to rewrite (a
   *     segment written before positions existed): see {@link #relocatable}
   */
  public static RelocatedChunks of(LeafReader leaf, FixedBitSet chunks, Positions positions) throws IOException {
    if (!relocatable(leaf)) {
      throw new IllegalArgumentException("segment without record position fields: " + leaf);
    }
    return new RelocatedChunks(SlowCodecReaderWrapper.wrap(leaf), chunks, positions);
  }

  /** Whether {@code leaf} has the record position fields, of their types, for copies to carry new ones. */
  public static boolean relocatable(LeafReader leaf) {
    FieldInfos infos = leaf.getFieldInfos();
    FieldInfo source = infos.fieldInfo(ShardSchema.SOURCE);
    FieldInfo offset = infos.fieldInfo(ShardSchema.SOURCE_OFFSET);
    return source != null && source.getDocValuesType() == DocValuesType.SORTED
        && offset != null && offset.getDocValuesType() == DocValuesType.NUMERIC;
  }

  private void forEach(IntConsumer action) {
    for (int d = chunks.nextSetBit(0); d != DocIdSetIterator.NO_MORE_DOCS;
        d = d + 1 < chunks.length() ? chunks.nextSetBit(d + 1) : DocIdSetIterator.NO_MORE_DOCS) {
      action.accept(d);
    }
  }

  @Override
  public FieldsProducer getPostingsReader() {
    FieldsProducer base = in.getPostingsReader();
    if (base == null || metaSources == null) {
      return base;
    }
    return new FieldsProducer() {
      @Override
      public Iterator<String> iterator() {
        return base.iterator();
      }

      @Override
      public Terms terms(String field) throws IOException {
        return META_SOURCE.equals(field) ? metaSources : base.terms(field);
      }

      @Override
      public int size() {
        return base.size();
      }

      @Override
      public void checkIntegrity() throws IOException {
        base.checkIntegrity();
      }

      @Override
      public void close() {
        // The segment's own producer belongs to the reader this one wraps.
      }
    };
  }

  @Override
  public StoredFieldsReader getFieldsReader() {
    StoredFieldsReader base = in.getFieldsReader();
    return base == null ? null
        : new RewrittenStoredField(base, META_SOURCE, doc -> chunks.get(doc) ? positions.of(doc).sourceUri() : null);
  }

  @Override
  public DocValuesProducer getDocValuesReader() {
    DocValuesProducer base = in.getDocValuesReader();
    return new DocValuesProducer() {
      @Override
      public NumericDocValues getNumeric(FieldInfo field) throws IOException {
        return ShardSchema.SOURCE_OFFSET.equals(field.name) ? new Offsets() : base.getNumeric(field);
      }

      @Override
      public SortedDocValues getSorted(FieldInfo field) throws IOException {
        return ShardSchema.SOURCE.equals(field.name) ? new Sources() : base.getSorted(field);
      }

      @Override
      public BinaryDocValues getBinary(FieldInfo field) throws IOException {
        return base.getBinary(field);
      }

      @Override
      public SortedNumericDocValues getSortedNumeric(FieldInfo field) throws IOException {
        return base.getSortedNumeric(field);
      }

      @Override
      public SortedSetDocValues getSortedSet(FieldInfo field) throws IOException {
        return base.getSortedSet(field);
      }

      @Override
      public DocValuesSkipper getSkipper(FieldInfo field) throws IOException {
        // The copies' positions are not the base's: a skip index over the old values would mislead.
        return ShardSchema.SOURCE.equals(field.name) || ShardSchema.SOURCE_OFFSET.equals(field.name) ? null
            : base.getSkipper(field);
      }

      @Override
      public void checkIntegrity() throws IOException {
        base.checkIntegrity();
      }

      @Override
      public void close() {
        // The segment's own producer belongs to the reader this one wraps.
      }
    };
  }

  /** Iterates the copied chunks, in doc order. */
  private abstract class CopiedDocs {
    int doc = -1;

    int nextDoc() {
      return advance(doc + 1);
    }

    int advance(int target) {
      doc = target >= chunks.length() ? DocIdSetIterator.NO_MORE_DOCS : chunks.nextSetBit(target);
      return doc;
    }

    boolean advanceExact(int target) {
      doc = target;
      return chunks.get(target);
    }
  }

  private final class Sources extends SortedDocValues {
    private final CopiedDocs docs = new CopiedDocs() {};

    @Override
    public int ordValue() {
      return ordOf.get(positions.of(docs.doc).sourceUri());
    }

    @Override
    public BytesRef lookupOrd(int ord) {
      return files[ord];
    }

    @Override
    public int getValueCount() {
      return files.length;
    }

    @Override
    public int docID() {
      return docs.doc;
    }

    @Override
    public int nextDoc() {
      return docs.nextDoc();
    }

    @Override
    public int advance(int target) {
      return docs.advance(target);
    }

    @Override
    public boolean advanceExact(int target) {
      return docs.advanceExact(target);
    }

    @Override
    public long cost() {
      return numDocs();
    }
  }

  private final class Offsets extends NumericDocValues {
    private final CopiedDocs docs = new CopiedDocs() {};

    @Override
    public long longValue() {
      return positions.of(docs.doc).offset();
    }

    @Override
    public int docID() {
      return docs.doc;
    }

    @Override
    public int nextDoc() {
      return docs.nextDoc();
    }

    @Override
    public int advance(int target) {
      return docs.advance(target);
    }

    @Override
    public boolean advanceExact(int target) {
      return docs.advanceExact(target);
    }

    @Override
    public long cost() {
      return numDocs();
    }
  }
}
