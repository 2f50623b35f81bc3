package dev.kiln.langchain4j;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The README shows the code {@link ReadmeExample} compiles, to the character. */
class ReadmeSnippetTest {
  @Test
  void theReadmeHoldsTheCompiledSnippet() throws IOException {
    String snippet = snippet(Path.of("src/test/java/dev/kiln/langchain4j/ReadmeExample.java"));
    String readme = Files.readString(Path.of(System.getProperty("kiln.home"), "README.md"));
    assertTrue(readme.contains("```java\n" + snippet + "```\n"),
        "README.md's 'Use from LangChain4j' block must be ReadmeExample's code between README-START and README-END:\n"
            + snippet);
  }

  /** The lines between the markers, with the class body's two-space indent removed. */
  static String snippet(Path source) throws IOException {
    String text = Files.readString(source);
    String body = text.substring(text.indexOf("// README-START\n") + "// README-START\n".length(),
        text.indexOf("  // README-END"));
    return Arrays.stream(body.split("\n", -1)).map(l -> l.startsWith("  ") ? l.substring(2) : l)
        .collect(Collectors.joining("\n"));
  }
}
