package dev.kiln.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.IngestConfig;
import dev.kiln.model.ContentType;
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
    return assertThrows(MalformedRecordException.class, () -> json(line)).reason();
  }

  @Test
  void parsesBeirLinesWithMetadata() throws Exception {
    Document d = json("{\"_id\": 17, \"title\": \"T\", \"text\": \"body\", \"metadata\": {\"tenant\": \"a\", \"year\": 2020, \"nested\": {\"x\": 1}}}");
    assertEquals("17", d.id());
    assertEquals("T", d.title());
    assertEquals("body", d.text());
    // Scalars become strings; nested objects are not flat metadata and are dropped; the source is always there.
    assertEquals(Map.of("tenant", "a", "year", "2020", "source_uri", "file:/corpus/a.jsonl"), d.metadata());
  }

  @Test
  void badLinesHaveReasonCodes() {
    assertEquals(QuarantineReason.MISSING_ID, reason("{\"title\": \"x\", \"text\": \"y\"}"));
    assertEquals(QuarantineReason.EMPTY_TEXT, reason("{\"_id\": \"1\", \"text\": \"  \"}"));
    assertEquals(QuarantineReason.NOT_AN_OBJECT, reason("[1, 2]"));
    assertEquals(QuarantineReason.MALFORMED_JSON, reason("{\"_id\": "));
    MalformedRecordException e = assertThrows(MalformedRecordException.class, () -> json("{\"_id\": "));
    assertTrue(e.getMessage().startsWith("malformed JSON"), e.getMessage());
    assertEquals(QuarantineReason.INVALID_UTF8, assertThrows(MalformedRecordException.class, () -> parser.parse(
        RawRecord.undecodable("file:/corpus/a.jsonl", 10, InputFormat.JSONL, QuarantineReason.INVALID_UTF8))).reason());
  }

  @Test
  void halfASurrogatePairInAnyFieldIsInvalidUnicodeAndAWholePairIsKeptAsWritten() throws Exception {
    // JSON escapes of a lone high or low surrogate are valid JSON but no character.
    assertEquals(QuarantineReason.INVALID_UNICODE, reason("{\"_id\": \"1\", \"text\": \"x\\ud800y\"}"));
    assertEquals(QuarantineReason.INVALID_UNICODE, reason("{\"_id\": \"1\", \"text\": \"ok\", \"title\": \"\\udc00\"}"));
    assertEquals(QuarantineReason.INVALID_UNICODE, reason("{\"_id\": \"a\\udbff\", \"text\": \"ok\"}"));
    assertEquals(QuarantineReason.INVALID_UNICODE,
        reason("{\"_id\": \"1\", \"text\": \"ok\", \"metadata\": {\"tenant\": \"\\ud83d\"}}"));
    MalformedRecordException e = assertThrows(MalformedRecordException.class,
        () -> json("{\"_id\": \"1\", \"text\": \"ab\\ud800\"}"));
    assertTrue(e.getMessage().contains("text") && e.getMessage().contains("U+D800") && e.getMessage().contains(" 2"),
        e.getMessage());
    // An escaped pair and a raw supplementary character are one character each: kept as written.
    Document d = json("{\"_id\": \"1\", \"text\": \"\\ud83d\\ude80 🚀 𠀀 end\"}");
    assertEquals("🚀 🚀 𠀀 end", d.text());
  }

  @Test
  void markdownIdIsThePathUnderTheMostSpecificRootAndTitleTheFirstHeading() throws Exception {
    Document d = parser.parse(RawRecord.of("file:/corpus/nested/guide/x.md", 0, InputFormat.MARKDOWN,
        "intro line\n\n## Second level first\n# Top\ntext"));
    assertEquals("guide/x.md", d.id());
    assertEquals("Second level first", d.title());
    assertEquals(ContentType.MARKDOWN, d.contentType());
    Document single = new RecordParser(List.of("file:/one.md"))
        .parse(RawRecord.of("file:/one.md", 0, InputFormat.MARKDOWN, "no heading"));
    assertEquals("one.md", single.id());
    assertEquals("one.md", single.title());
  }

  @Test
  void plainTextIsOneDocumentTitledByItsFileName() throws Exception {
    Document d = parser.parse(RawRecord.of("file:/corpus/notes/ops.txt.gz", 0, InputFormat.TEXT, "line one\nline two"));
    assertEquals("notes/ops.txt.gz", d.id());
    assertEquals("ops", d.title());
    assertEquals(ContentType.TEXT, d.contentType());
    assertEquals("line one\nline two", d.text());
  }

  @Test
  void metadataComesFromPathPatternsThenRecordFieldsThenTheMetadataObject() throws Exception {
    IngestConfig c = new IngestConfig();
    c.pathPatterns = List.of("^(?<tenant>[^/]+)/(?<doctype>[^/]+)/", "_v(?<version>\\d+)\\.");
    c.idField = "doc";
    c.textField = "body";
    c.metadataFields.put("language", "lang");
    RecordParser p = new RecordParser(List.of("s3://bucket/corpus"), c);
    RawRecord raw = new RawRecord("s3://bucket/corpus/acme/manual/part_v3.jsonl", 0, InputFormat.JSONL,
        "{\"doc\": \"d1\", \"body\": \"hello\", \"lang\": \"en\", \"doc_type\": \"faq\", \"metadata\": {\"tenant\": \"acme-eu\"}}",
        null, 10, 1_700_000_000_000L);
    Document d = p.parse(raw);
    assertEquals("d1", d.id());
    assertEquals("hello", d.text());
    assertEquals("acme-eu", d.metadata().get("tenant"), "the record's metadata object wins over the path");
    assertEquals("manual", d.metadata().get("doctype"));
    assertEquals("3", d.metadata().get("version"));
    assertEquals("en", d.metadata().get("language"));
    assertEquals("faq", d.metadata().get("doc_type"));
    assertEquals("s3://bucket/corpus/acme/manual/part_v3.jsonl", d.metadata().get("source_uri"));
    assertEquals("2023-11-14T22:13:20Z", d.metadata().get("modified"));
  }

  @Test
  void htmlStaysRawAndIsTitledByTitleElseFirstH1() throws Exception {
    String html = "<html><head><title>Kiln page</title></head><body><h1>Heading</h1><p>x</p></body></html>";
    Document d = parser.parse(RawRecord.of("file:/corpus/site/a.html", 0, InputFormat.HTML, html));
    assertEquals("site/a.html", d.id());
    assertEquals("Kiln page", d.title());
    assertEquals(html, d.text());
    assertEquals(ContentType.HTML, d.contentType());
    Document untitled = parser.parse(RawRecord.of("file:/corpus/b.htm", 0, InputFormat.HTML,
        "<body><h1>First heading</h1></body>"));
    assertEquals("First heading", untitled.title());
    assertEquals(InputFormat.HTML, InputFormat.forFileName("x.HTM"));
  }
}
