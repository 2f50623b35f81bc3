package dev.kiln.search;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kiln.search.filter.FilterException;
import org.junit.jupiter.api.Test;

/** One message, the setting's name filled in by whoever prints it. */
class SettingExceptionTest {
  @Test
  void theLibraryNamesTheSettingAndAFrontEndRenamesIt() {
    SettingException e = new SettingException("unknown ", Setting.FEEDBACK_SCOPE, " 'x': valid values are candidates, index");
    assertEquals("unknown feedback-scope 'x': valid values are candidates, index", e.getMessage());
    assertEquals("unknown --prf-scope 'x': valid values are candidates, index",
        e.message(s -> s == Setting.FEEDBACK_SCOPE ? "--prf-scope" : "?"));
    assertEquals(Setting.FEEDBACK_SCOPE, e.setting());
  }

  @Test
  void withoutTheSettingOneSpaceCloses() {
    assertEquals("malformed key 'a b': use letters",
        new FilterException("malformed ", " key 'a b': use letters").messageWithoutSetting());
    assertEquals("names 65 distinct keys", new FilterException("", " names 65 distinct keys").messageWithoutSetting());
    assertEquals("filter names 65 distinct keys", new FilterException("", " names 65 distinct keys").getMessage());
  }
}
