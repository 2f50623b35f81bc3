package dev.kiln.index.store;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.lucene.store.BufferedIndexInput;
import org.apache.lucene.store.IndexInput;

/** An {@link IndexInput} over (a slice of) a {@link CachedRemoteFile}; closing it leaves the file open. */
final class CachedRemoteInput extends BufferedIndexInput {
  private final CachedRemoteFile file;
  private final long offset;
  private final long length;

  CachedRemoteInput(String description, CachedRemoteFile file, long offset, long length, int bufferSize) {
    super(description, bufferSize);
    this.file = file;
    this.offset = offset;
    this.length = length;
  }

  @Override
  protected void readInternal(ByteBuffer b) throws IOException {
    long pos = getFilePointer();
    if (pos + b.remaining() > length) {
      throw new EOFException("read past EOF: " + this);
    }
    file.read(offset + pos, b);
  }

  @Override
  protected void seekInternal(long pos) throws IOException {
    if (pos > length) {
      throw new EOFException("seek past EOF: " + pos + " > " + length + ": " + this);
    }
  }

  @Override
  public long length() {
    return length;
  }

  @Override
  public IndexInput slice(String sliceDescription, long sliceOffset, long sliceLength) throws IOException {
    if (sliceOffset < 0 || sliceLength < 0 || sliceOffset + sliceLength > length) {
      throw new IllegalArgumentException("slice " + sliceOffset + "+" + sliceLength + " out of bounds: " + this);
    }
    return new CachedRemoteInput(getFullSliceDescription(sliceDescription), file, offset + sliceOffset, sliceLength,
        getBufferSize());
  }

  @Override
  public void close() {
    // the file outlives its inputs: its owner closes it
  }
}
