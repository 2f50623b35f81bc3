package dev.kiln.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

class Utf16Test {
  @Test
  void pairsAndBmpTextHaveNoUnpairedSurrogate() {
    assertEquals(-1, Utf16.firstUnpaired(""));
    assertEquals(-1, Utf16.firstUnpaired("plain, naïve 快照"));
    assertEquals(-1, Utf16.firstUnpaired("🚀𠀀𝔸 a👩‍💻b"));
    String text = "🚀 ok";
    assertSame(text, Utf16.replaceUnpaired(text), "nothing to replace: the same string");
  }

  @Test
  void eachUnpairedHalfIsFoundAndReplacedOneUnitForOne() {
    assertEquals(1, Utf16.firstUnpaired("x\uD800y"));
    assertEquals(0, Utf16.firstUnpaired("\uDC00🚀"));
    assertEquals(3, Utf16.firstUnpaired("🚀a\uD83D"), "a high surrogate at the end");
    assertEquals(2, Utf16.firstUnpaired("🚀\uDE80\uD83D"), "a low surrogate after a pair, a high one at the end");
    String mixed = "\uDC00a🚀\uD800\uD800b\uDE80";
    String replaced = Utf16.replaceUnpaired(mixed);
    assertEquals("\uFFFDa🚀\uFFFD\uFFFDb\uFFFD", replaced);
    assertEquals(mixed.length(), replaced.length());
  }
}
