package dev.kiln.testing;

import java.lang.reflect.Method;
import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.PropagationMode;
import net.jqwik.api.lifecycle.PropertyAttributes;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;

/**
 * The run settings of every {@code *FuzzTest} (jqwik properties over the readers of untrusted bytes):
 * {@code @AddLifecycleHook(FuzzTries.class)} on the class. Each property keeps its own {@code tries},
 * sized so that its class runs in 2 to 3 seconds inside {@code scripts/test}; {@code
 * -Dkiln.fuzz.tries=N} replaces them all for a long run. The seed follows {@link TestSeeds}: fixed by
 * default (CI draws the same inputs every time), {@code -Dkiln.tests.seed=random} or {@code =N} for
 * others; a failure prints jqwik's seed and sample, and the flag that repeats the run.
 */
public final class FuzzTries implements AroundPropertyHook {
  public static final String PROPERTY = "kiln.fuzz.tries";

  /** Added on a test class, it applies to every property in it (jqwik's default: the class alone). */
  @Override
  public PropagationMode propagateTo() {
    return PropagationMode.ALL_DESCENDANTS;
  }

  @Override
  public PropertyExecutionResult aroundProperty(PropertyLifecycleContext context, PropertyExecutor property) {
    PropertyAttributes attributes = context.attributes();
    String tries = System.getProperty(PROPERTY, "").trim();
    if (!tries.isEmpty()) {
      attributes.setTries(Integer.parseInt(tries));
    }
    if (attributes.seed().filter(s -> !s.isEmpty()).isEmpty()) {
      Method method = context.targetMethod();
      attributes.setSeed(Long.toString(TestSeeds.derive(method.getDeclaringClass().getName() + "#" + method.getName())));
    }
    PropertyExecutionResult result = property.execute();
    if (result.status() == PropertyExecutionResult.Status.FAILED) {
      System.err.println(context.extendedLabel() + ": " + TestSeeds.reproduceLine());
    }
    return result;
  }
}
