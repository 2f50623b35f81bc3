package dev.kiln.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.kiln.model.Document;
import dev.kiln.model.InputFormat;
import dev.kiln.model.RawRecord;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RecordParserTest {
  private final RecordParser parser = new RecordParser(List.of("file:/corpus", "file:/corpus/nested"));

  private Document json(String line) throws MalformedRecordException {
    return parser.parse(RawRecord.of("file:/corpus/a.jsonl", 0, InputFormat.JSONL, line));
  }

  private String reason(String line) {
    return assertThrows(MalformedRecordException.class, () -> json(line)).getMessage();
  }

  @Test
  void parsesBeirLinesWithMetadata() throws Exception {
    Document d = json("{\"_id\": 17, \"title\": \"T\", \"text\": \"body\", \"metadata\": {\"tenant\": \"a\", \"year\": 2020, \"nested\": {\"x\": 1}}}");
    assertEquals("17", d.id());
    assertEquals("T", d.title());
    assertEquals("body", d.text());
    // Scalars become strings; nested objects are not flat metadata and are dropped.
    assertEquals(Map.of("tenant", "a", "year", "2020"), d.metadata());
  }

  @Test
  void badLinesHaveReasons() {
    assertEquals("missing _id", reason("{\"title\": \"x\", \"text\": \"y\"}"));
    assertEquals("empty text", reason("{\"_id\": \"1\", \"text\": \"  \"}"));
    assertEquals("not a JSON object", reason("[1, 2]"));
    assertEquals(true, reason("{\"_id\": ").startsWith("malformed JSON"));
    assertEquals("invalid UTF-8", assertThrows(MalformedRecordException.class, () -> parser.parse(
        RawRecord.undecodable("file:/corpus/a.jsonl", 10, InputFormat.JSONL, "invalid UTF-8"))).getMessage());
  }

  @Test
  void markdownIdIsThePathUnderTheMostSpecificRootAndTitleTheFirstHeading() throws Exception {
    Document d = parser.parse(RawRecord.of("file:/corpus/nested/guide/x.md", 0, InputFormat.MARKDOWN,
        "intro line\n\n## Second level first\n# Top\ntext"));
    assertEquals("guide/x.md", d.id());
    assertEquals("Second level first", d.title());
    Document single = new RecordParser(List.of("file:/one.md"))
        .parse(RawRecord.of("file:/one.md", 0, InputFormat.MARKDOWN, "no heading"));
    assertEquals("one.md", single.id());
    assertEquals("one.md", single.title());
  }

  @Test
  void htmlStaysRawAndIsTitledByTitleElseFirstH1() throws Exception {
    String html = "<html><head><title>Kiln page</title></head><body><h1>Heading</h1><p>x</p></body></html>";
    Document d = parser.parse(RawRecord.of("file:/corpus/site/a.html", 0, InputFormat.HTML, html));
    assertEquals("site/a.html", d.id());
    assertEquals("Kiln page", d.title());
    assertEquals(html, d.text());
    assertEquals(dev.kiln.model.ContentType.HTML, d.contentType());
    Document untitled = parser.parse(RawRecord.of("file:/corpus/b.htm", 0, InputFormat.HTML,
        "<body><h1>First heading</h1></body>"));
    assertEquals("First heading", untitled.title());
    assertEquals(InputFormat.HTML, InputFormat.forFileName("x.HTM"));
  }
}
