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
import org.apache.parquet.io.ParquetDecodingException;
import org.apache.parquet.schema.PrimitiveType;

/**
 * One row group's vector column decoded page by page: a page's repetition and definition levels are
 * decoded whole ({@link LevelRuns}) and say where each row starts and whether an element is there, and
 * the numbers of a PLAIN page are copied out of its bytes in one go (as many as its levels say; a page
 * with fewer bytes throws). Parquet's own column and record readers do the same through a converter
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

  /** The current page's levels and numbers, decoded whole when it opens. */
  private int[] repetition = new int[0];
  private int[] definition = new int[0];
  private float[] numbers = new float[0];
  private int pageValues;
  /** The next level to read, and the next number. */
  private int at;
  private int number;
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
          // This element, and at once the run of present elements of the same row after it in the
          // page: a 384-float vector is one copy, not 384 turns of this loop.
          int run = presentRun();
          if (size + 1 + run > buffer.length) {
            buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, size + 1 + run));
          }
          buffer[size++] = numbers[number++];
          System.arraycopy(numbers, number, buffer, size, run);
          size += run;
          number += run;
          at += run;
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

  /**
   * How many level entries after the current one, in this page, continue the current row with a
   * present element (repetition level above 0, definition level at the maximum).
   */
  private int presentRun() {
    int i = at;
    while (i < pageValues && repetition[i] != 0 && definition[i] == maxLevel) {
      i++;
    }
    return i - at;
  }

  /** Reads the next value's levels, opening the next page when this one is done. */
  private void advance() {
    while (at == pageValues) {
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
    rl = repetition[at];
    dl = definition[at];
    at++;
    has = true;
  }

  /** Decodes a page's levels and numbers into the arrays above. */
  private void open(DataPage page) throws IOException {
    int count = page.getValueCount();
    if (repetition.length < count) {
      repetition = new int[count];
      definition = new int[count];
    }
    if (page instanceof DataPageV1 v1) {
      ByteBufferInputStream in = v1.getBytes().toInputStream();
      levelsV1(v1.getRlEncoding(), ValuesType.REPETITION_LEVEL, descriptor.getMaxRepetitionLevel(), in, repetition, count);
      levelsV1(v1.getDlEncoding(), ValuesType.DEFINITION_LEVEL, maxLevel, in, definition, count);
      readNumbers(v1.getValueEncoding(), in, count);
    } else if (page instanceof DataPageV2 v2) {
      levelsV2(descriptor.getMaxRepetitionLevel(), v2.getRepetitionLevels(), repetition, count);
      levelsV2(maxLevel, v2.getDefinitionLevels(), definition, count);
      readNumbers(v2.getDataEncoding(), v2.getData().toInputStream(), count);
    } else {
      throw new ParquetDecodingException("unknown page type " + page.getClass().getName());
    }
    pageValues = count;
    at = 0;
    number = 0;
  }

  /** Version 1 levels: RLE (a 4-byte length, then the hybrid runs) decoded here, else by Parquet's reader. */
  private void levelsV1(Encoding encoding, ValuesType type, int max, ByteBufferInputStream in, int[] out, int count)
      throws IOException {
    if (max == 0) {
      Arrays.fill(out, 0, count, 0); // not written at all
      return;
    }
    if (encoding == Encoding.RLE) {
      ByteBuffer length = in.slice(4).order(ByteOrder.LITTLE_ENDIAN);
      LevelRuns.decode(in.slice(length.getInt()), BytesUtils.getWidthFromMaxInt(max), out, count);
      return;
    }
    ValuesReader reader = encoding.getValuesReader(descriptor, type);
    reader.initFromPage(count, in);
    for (int i = 0; i < count; i++) {
      out[i] = reader.readInteger();
    }
  }

  /** Version 2 levels: their own hybrid runs without a length, none when the maximum level is 0. */
  private static void levelsV2(int max, BytesInput bytes, int[] out, int count) throws IOException {
    if (max == 0) {
      Arrays.fill(out, 0, count, 0);
      return;
    }
    LevelRuns.decode(bytes.toByteBuffer(), BytesUtils.getWidthFromMaxInt(max), out, count);
  }

  /** The page's numbers (one per level at the maximum definition level), as floats. */
  private void readNumbers(Encoding encoding, ByteBufferInputStream in, int count) throws IOException {
    int n = 0;
    for (int i = 0; i < count; i++) {
      if (definition[i] == maxLevel) {
        n++;
      }
    }
    if (numbers.length < n) {
      numbers = new float[Math.max(n, numbers.length * 2)];
    }
    if (encoding == Encoding.PLAIN) {
      // one bulk copy; a page with fewer bytes than its levels say throws (the row group is unreadable)
      ByteBuffer bytes = in.slice(n * (isDouble ? 8 : 4)).order(ByteOrder.LITTLE_ENDIAN);
      if (isDouble) {
        for (int i = 0; i < n; i++) {
          numbers[i] = (float) bytes.getDouble(); // beyond float range: an infinity, which the check refuses
        }
      } else {
        bytes.asFloatBuffer().get(numbers, 0, n);
      }
    } else {
      ValuesReader values;
      if (encoding.usesDictionary()) {
        if (dictionary == null) {
          throw new ParquetDecodingException("dictionary-encoded page without a dictionary page");
        }
        values = encoding.getDictionaryBasedValuesReader(descriptor, ValuesType.VALUES, dictionary);
      } else {
        values = encoding.getValuesReader(descriptor, ValuesType.VALUES);
      }
      values.initFromPage(count, in);
      for (int i = 0; i < n; i++) {
        numbers[i] = isDouble ? (float) values.readDouble() : values.readFloat();
      }
    }
  }
}
