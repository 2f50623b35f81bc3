package dev.kiln.ingest;

import java.io.IOException;
import java.io.InputStream;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * One XML part of an {@link OfficePackage}, read as a stream of events (StAX, the JDK's own parser),
 * so that reading holds the element at hand and what the reader keeps of it, never a tree of the part.
 * No DTD, no external entity. Elements are told by their local names; the readers know which
 * vocabulary a part speaks. Each step checks what a hostile part could abuse: elements nested deeper
 * than {@value #MAX_DEPTH} are {@code corrupt_document} (real documents nest a few dozen), and every
 * {@value #DEADLINE_EVERY} events the document's deadline is looked at ({@code too_costly}).
 */
final class OfficeXml implements AutoCloseable {
  /** The deepest element nesting read: Word's tables nested in tables, text boxes and fields stay far below. */
  static final int MAX_DEPTH = 128;
  static final int DEADLINE_EVERY = 4096;
  private static final XMLInputFactory FACTORY = factory();

  private final XMLStreamReader xml;
  private final InputStream in;
  private final String part;
  private final ExtractedDocument out;
  private int depth;
  private long events;

  private OfficeXml(XMLStreamReader xml, InputStream in, String part, ExtractedDocument out) {
    this.xml = xml;
    this.in = in;
    this.part = part;
    this.out = out;
  }

  private static XMLInputFactory factory() {
    XMLInputFactory f = XMLInputFactory.newDefaultFactory();
    f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
    f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
    f.setProperty(XMLInputFactory.IS_NAMESPACE_AWARE, true);
    // Text arrives in pieces, so a huge text node is counted as it comes, never buffered whole first.
    f.setProperty(XMLInputFactory.IS_COALESCING, false);
    try {
      // The JDK's own limit (100 from JDK 24 on, none before), above ours so that ours speaks first.
      f.setProperty("jdk.xml.maxElementDepth", String.valueOf(MAX_DEPTH + 1));
    } catch (IllegalArgumentException e) {
      // A JDK without the property: our own check stands alone.
    }
    return f;
  }

  /** Opens a part of the package; its bytes count against the package's budget as they are parsed. */
  static OfficeXml open(OfficePackage pkg, String part) throws IOException, XMLStreamException {
    InputStream in = pkg.open(part);
    try {
      return new OfficeXml(FACTORY.createXMLStreamReader(in), in, part, pkg.document());
    } catch (XMLStreamException | RuntimeException e) {
      in.close();
      throw e;
    }
  }

  /** The next event; depth and deadline checked. */
  int next() throws XMLStreamException, MalformedRecordException, ExtractedDocument.TooCostly {
    int e = xml.next();
    if (e == XMLStreamConstants.START_ELEMENT) {
      if (++depth > MAX_DEPTH) {
        throw new MalformedRecordException(QuarantineReason.CORRUPT_DOCUMENT,
            part + ": elements nested deeper than " + MAX_DEPTH);
      }
    } else if (e == XMLStreamConstants.END_ELEMENT) {
      depth--;
    }
    if (++events % DEADLINE_EVERY == 0) {
      out.checkDeadline();
    }
    return e;
  }

  /** The depth of the element just started (the root is 1), or of the one an end event left. */
  int depth() {
    return depth;
  }

  boolean isStart(String localName) {
    return xml.getEventType() == XMLStreamConstants.START_ELEMENT && xml.getLocalName().equals(localName);
  }

  boolean isStart() {
    return xml.getEventType() == XMLStreamConstants.START_ELEMENT;
  }

  /** Whether the event is the end of the element started at {@code depth} (or of one outside it). */
  boolean isEndOf(int startDepth) {
    return xml.getEventType() == XMLStreamConstants.END_ELEMENT && depth < startDepth;
  }

  boolean isText() {
    int e = xml.getEventType();
    return e == XMLStreamConstants.CHARACTERS || e == XMLStreamConstants.CDATA || e == XMLStreamConstants.SPACE;
  }

  String name() {
    return xml.getLocalName();
  }

  /** The started element's attribute of this local name, in any namespace, or {@code null}. */
  String attr(String localName) {
    for (int i = 0, n = xml.getAttributeCount(); i < n; i++) {
      if (xml.getAttributeLocalName(i).equals(localName)) {
        return xml.getAttributeValue(i);
      }
    }
    return null;
  }

  /** The started element's {@code r:id}: a relationship id (transitional or strict namespace), or {@code null}. */
  String relationshipId() {
    for (int i = 0, n = xml.getAttributeCount(); i < n; i++) {
      String ns = xml.getAttributeNamespace(i);
      if (xml.getAttributeLocalName(i).equals("id") && ns != null && ns.endsWith("relationships")) {
        return xml.getAttributeValue(i);
      }
    }
    return null;
  }

  /** Skips the element just started, to its end. */
  void skip() throws XMLStreamException, MalformedRecordException, ExtractedDocument.TooCostly {
    int start = depth;
    while (next() != XMLStreamConstants.END_DOCUMENT && !isEndOf(start)) {
      // nothing kept
    }
  }

  /**
   * The text of the element just started, to its end, into {@code into}; {@link ExtractedDocument.TooLarge}
   * once {@code into} would hold more than {@code room} characters.
   */
  void text(StringBuilder into, long room) throws XMLStreamException, MalformedRecordException,
      ExtractedDocument.TooCostly, ExtractedDocument.TooLarge {
    int start = depth;
    while (next() != XMLStreamConstants.END_DOCUMENT && !isEndOf(start)) {
      if (isText()) {
        if (into.length() + xml.getTextLength() > room) {
          throw new ExtractedDocument.TooLarge(out.budget());
        }
        into.append(xml.getTextCharacters(), xml.getTextStart(), xml.getTextLength());
      }
    }
  }

  /** The text of the element just started, of which the first {@code keep} characters are kept. */
  String shortText(int keep) throws XMLStreamException, MalformedRecordException, ExtractedDocument.TooCostly {
    StringBuilder into = new StringBuilder();
    int start = depth;
    while (next() != XMLStreamConstants.END_DOCUMENT && !isEndOf(start)) {
      if (isText() && into.length() < keep) {
        into.append(xml.getTextCharacters(), xml.getTextStart(), Math.min(xml.getTextLength(), keep - into.length()));
      }
    }
    return into.toString();
  }

  @Override
  public void close() throws IOException {
    try {
      xml.close();
    } catch (XMLStreamException e) {
      // closing a reader frees its state only; the stream is closed below
    } finally {
      in.close();
    }
  }
}
