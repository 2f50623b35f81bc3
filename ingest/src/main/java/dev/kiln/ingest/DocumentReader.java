package dev.kiln.ingest;

import java.io.File;
import java.io.IOException;

/**
 * Extracts the text of one binary document (PDF, DOCX, PPTX) from a local file into an {@link
 * ExtractedDocument}. A document that cannot be read is a {@link MalformedRecordException} with its
 * quarantine reason; an {@link IOException} is the file system failing and fails the task.
 */
interface DocumentReader {
  /** Metadata keys of document properties (the title is the document's title, not metadata). */
  String AUTHOR = "author";
  String CREATED = "doc_created";
  String DOC_MODIFIED = "doc_modified";
  String PAGES = "pages";
  String SLIDES = "slides";

  void read(File file, ExtractedDocument out) throws MalformedRecordException, IOException;
}
