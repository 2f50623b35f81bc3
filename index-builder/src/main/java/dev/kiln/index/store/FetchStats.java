package dev.kiln.index.store;

import java.util.concurrent.atomic.AtomicLong;

/** Bytes and blocks fetched from remote files, over every file that shares this counter. */
public final class FetchStats {
  private final AtomicLong bytes = new AtomicLong();
  private final AtomicLong blocks = new AtomicLong();

  void fetched(long n) {
    bytes.addAndGet(n);
    blocks.incrementAndGet();
  }

  public long bytes() {
    return bytes.get();
  }

  public long blocks() {
    return blocks.get();
  }
}
