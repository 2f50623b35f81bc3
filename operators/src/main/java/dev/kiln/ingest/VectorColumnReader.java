package dev.kiln.ingest;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.apache.parquet.bytes.ByteBufferInputStream;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.bytes.BytesUtils;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ValuesType;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.column.values.ValuesReader;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridDecoder;
import org.apache.parquet.io.ParquetDecodingException;
import org.apache.parquet.schema.PrimitiveType;

/**
 * One row group's vector column decoded page by page: each value's repetition and definition levels
 * say where a row starts and whether an element is there, and the numbers of a PLAIN page are read
 * from its bytes in one pass. Parquet's own column and record readers do the same through a converter
 * call, a level check and a lazy value read per element, which cost more than the rest of the row at
 * 384 dimensions. Any other value encoding (dictionary, byte-stream split) goes through Parquet's
 * {@link ValuesReader} for that encoding; both page versions are read. A page that does not decode
 * throws {@link ParquetDecodingException}, which the row reader turns into an unreadable row group.
 */
final class VectorColumnReader {
  private final VectorColumn column;
  private final PageReader pages;
  private final ColumnDescriptor descriptor;
  private final boolean isDouble;
  private final Dictionary dictionary;
  /** From this definition level a row's list is present; from {@link #elementLevel} a level is an element. */
  private final int presentLevel;
  private final int elementLevel;
  private final int maxLevel;

  private Levels repetition;
  private Levels definition;
  private Numbers numbers;
  private int leftInPage;
  /** The levels of the next value, read ahead to see where a row ends; {@code has} false at the end. */
  private int rl;
  private int dl;
  private boolean has;
  private boolean started;

  private float[] buffer = new float[512];
  private boolean[] nulls;

  VectorColumnReader(VectorColumn column, PageReadStore store) {
    this.column = column;
    this.descriptor = column.file().getColumnDescription(column.leafPath());
    this.pages = store.getPageReader(descriptor);
    this.isDouble = descriptor.getPrimitiveType().getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.DOUBLE;
    int[] levels = column.definitionLevels();
    this.presentLevel = levels[0];
    this.elementLevel = levels[1];
    this.maxLevel = descriptor.getMaxDefinitionLevel();
    DictionaryPage page = pages.readDictionaryPage();
    try {
      this.dictionary = page == null ? null : page.getEncoding().initDictionary(descriptor, page);
    } catch (IOException e) {
      throw new ParquetDecodingException("dictionary page of " + Arrays.toString(column.leafPath()), e);
    }
  }

  /** The next row's list. */
  VectorColumn.Values read() {
    if (!started) {
      started = true;
      advance();
    }
    if (!has) {
      throw new ParquetDecodingException("vector column ends before its row group");
    }
    int size = 0;
    boolean present = false;
    nulls = null;
    do {
      if (dl >= presentLevel) {
        present = true;
      }
      if (dl >= elementLevel) {
        if (size == buffer.length) {
          buffer = Arrays.copyOf(buffer, size * 2);
        }
        if (dl == maxLevel) {
          buffer[size++] = numbers.next();
        } else { // an optional element that is null (three-level layout)
          buffer[size++] = 0f;
          if (nulls == null) {
            nulls = new boolean[buffer.length];
          } else if (nulls.length < size) {
            nulls = Arrays.copyOf(nulls, buffer.length);
          }
          nulls[size - 1] = true;
        }
      }
      advance();
    } while (has && rl != 0);
    return column.new Values(present, Arrays.copyOf(buffer, size),
        nulls == null ? null : Arrays.copyOf(nulls, size));
  }

  /** Reads the next value's levels, opening the next page when this one is done. */
  private void advance() {
    while (leftInPage == 0) {
      DataPage page = pages.readPage();
      if (page == null) {
        has = false;
        return;
      }
      try {
        open(page);
      } catch (IOException e) {
        throw new ParquetDecodingException("page of " + Arrays.toString(column.leafPath()), e);
      }
    }
    rl = repetition.next();
    dl = definition.next();
    leftInPage--;
    has = true;
  }

  private void open(DataPage page) throws IOException {
    leftInPage = page.getValueCount();
    if (page instanceof DataPageV1 v1) {
      ByteBufferInputStream in = v1.getBytes().toInputStream();
      repetition = Levels.of(v1.getRlEncoding().getValuesReader(descriptor, ValuesType.REPETITION_LEVEL), leftInPage, in);
      definition = Levels.of(v1.getDlEncoding().getValuesReader(descriptor, ValuesType.DEFINITION_LEVEL), leftInPage, in);
      numbers = numbers(v1.getValueEncoding(), in);
    } else if (page instanceof DataPageV2 v2) {
      repetition = Levels.rle(descriptor.getMaxRepetitionLevel(), v2.getRepetitionLevels());
      definition = Levels.rle(descriptor.getMaxDefinitionLevel(), v2.getDefinitionLevels());
      numbers = numbers(v2.getDataEncoding(), v2.getData().toInputStream());
    } else {
      throw new ParquetDecodingException("unknown page type " + page.getClass().getName());
    }
  }

  private Numbers numbers(Encoding encoding, ByteBufferInputStream in) throws IOException {
    if (encoding == Encoding.PLAIN) {
      ByteBuffer bytes = in.slice(in.available()).order(ByteOrder.LITTLE_ENDIAN);
      return isDouble ? () -> (float) bytes.getDouble() : bytes::getFloat;
    }
    ValuesReader values;
    if (encoding.usesDictionary()) {
      if (dictionary == null) {
        throw new ParquetDecodingException("dictionary-encoded page without a dictionary page");
      }
      values = encoding.getDictionaryBasedValuesReader(descriptor, ValuesType.VALUES, dictionary);
    } else {
      values = encoding.getValuesReader(descriptor, ValuesType.VALUES);
    }
    values.initFromPage(leftInPage, in);
    // beyond float range a double becomes an infinity, which the vector check refuses
    return isDouble ? () -> (float) values.readDouble() : values::readFloat;
  }

  /** A page's numbers in order; a PLAIN page that ends early throws {@code BufferUnderflowException}. */
  private interface Numbers {
    float next();
  }

  /** A page's repetition or definition levels. */
  private interface Levels {
    int next();

    /** Version 1 levels, read from the page's stream (the values follow them). */
    static Levels of(ValuesReader reader, int count, ByteBufferInputStream in) throws IOException {
      reader.initFromPage(count, in);
      return reader::readInteger;
    }

    /** Version 2 levels: their own RLE/bit-packed bytes, none when the maximum level is 0. */
    static Levels rle(int max, BytesInput bytes) throws IOException {
      if (max == 0) {
        return () -> 0;
      }
      RunLengthBitPackingHybridDecoder decoder =
          new RunLengthBitPackingHybridDecoder(BytesUtils.getWidthFromMaxInt(max), bytes.toInputStream());
      return () -> {
        try {
          return decoder.readInt();
        } catch (IOException e) {
          throw new ParquetDecodingException("levels", e);
        }
      };
    }
  }
}
