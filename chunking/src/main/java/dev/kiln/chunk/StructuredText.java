package dev.kiln.chunk;

import java.util.List;

/**
 * A document as a text and its blocks in reading order: the structure-aware chunker's input. For
 * Markdown the text is the source itself; for HTML it is the text extracted from the markup, blocks
 * separated by blank lines.
 */
public record StructuredText(String text, List<Block> blocks) {}
