package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.kiln.operators.NativeLibraries;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.apache.flink.runtime.util.EnvironmentInformation;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The container image (deploy/Dockerfile), the Kubernetes manifests and deploy/rebuild.sh agree with each
 * other and with what {@code mvn package} of this module produces. No docker here, so the image is not
 * built: the files are read as the tools would read them (Dockerfile instructions, YAML, the POM).
 */
class DeployFilesTest {
  static final String USRLIB_JAR = "/opt/flink/usrlib/kiln-jobs.jar";
  static final List<String> DJL_OFFLINE = List.of("-Dai.djl.offline=true", "-DOPT_OUT_TRACKING=true", "-DDJL_CACHE_DIR=");

  static Path root;
  static List<String> dockerfile;
  static Map<String, String> args;
  static Map<String, String> copies;
  static Map<String, String> imageConfig;
  static JsonNode deployment;
  static JsonNode cronJob;
  static Element pom;

  @BeforeAll
  static void read() throws Exception {
    root = Path.of("").toAbsolutePath();
    if (!Files.exists(root.resolve("deploy/Dockerfile"))) {
      root = root.getParent(); // surefire runs in jobs/
    }
    dockerfile = instructions(Files.readAllLines(root.resolve("deploy/Dockerfile")));
    args = new LinkedHashMap<>();
    copies = new LinkedHashMap<>();
    imageConfig = new LinkedHashMap<>();
    for (String line : dockerfile) {
      String[] words = line.split("\\s+", 2);
      switch (words[0].toUpperCase(Locale.ROOT)) {
        case "ARG" -> {
          String[] kv = words[1].split("=", 2);
          args.put(kv[0], kv.length > 1 ? kv[1].replaceAll("^\"|\"$", "") : "");
        }
        case "COPY" -> {
          List<String> parts = Arrays.stream(words[1].split("\\s+")).filter(p -> !p.startsWith("--")).toList();
          assertEquals(2, parts.size(), "one source per COPY: " + line);
          copies.put(parts.get(0), parts.get(1));
        }
        case "RUN" -> {
          Matcher m = Pattern.compile("\"-D([^=\"]+)=([^\"]*)\"").matcher(words[1]);
          while (m.find()) {
            imageConfig.put(m.group(1), m.group(2).replace("$KILN_JAVA_OPTS", args.getOrDefault("KILN_JAVA_OPTS", "?")));
          }
        }
        default -> { }
      }
    }
    deployment = firstDocument(root.resolve("deploy/k8s/flinkdeployment.yaml"));
    cronJob = firstDocument(root.resolve("deploy/k8s/rebuild-cronjob.yaml"));
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    Document doc = factory.newDocumentBuilder().parse(root.resolve("jobs/pom.xml").toFile());
    pom = doc.getDocumentElement();
  }

  /** Dockerfile instructions: continuation lines joined, comments and blank lines dropped. */
  static List<String> instructions(List<String> lines) {
    List<String> out = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String raw : lines) {
      String line = raw.strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      boolean continues = line.endsWith("\\");
      current.append(continues ? line.substring(0, line.length() - 1) : line).append(' ');
      if (!continues) {
        out.add(current.toString().strip());
        current.setLength(0);
      }
    }
    return out;
  }

  static JsonNode firstDocument(Path yaml) throws IOException {
    try (MappingIterator<JsonNode> docs = new YAMLMapper().readerFor(JsonNode.class).readValues(yaml.toFile())) {
      return docs.next();
    }
  }

  static JsonNode rebuildContainer() {
    return cronJob.at("/spec/jobTemplate/spec/template/spec/containers/0");
  }

  static String cronEnv(String name) {
    for (JsonNode e : rebuildContainer().get("env")) {
      if (e.get("name").asText().equals(name)) {
        return e.get("value").asText();
      }
    }
    throw new AssertionError("the CronJob sets no " + name);
  }

  /** The text of the first element named {@code tag} under {@code parent}, or null. */
  static String text(Element parent, String tag) {
    NodeList nodes = parent.getElementsByTagName(tag);
    return nodes.getLength() == 0 ? null : nodes.item(0).getTextContent().strip();
  }

  /** The POM's plugin execution with this id (of the dependency or shade plugin). */
  static Element execution(String id) {
    NodeList executions = pom.getElementsByTagName("execution");
    for (int i = 0; i < executions.getLength(); i++) {
      Element e = (Element) executions.item(i);
      if (id.equals(text(e, "id"))) {
        return e;
      }
    }
    throw new AssertionError("jobs/pom.xml has no execution " + id);
  }

  static String copySourceTo(String destination) {
    return copies.entrySet().stream().filter(e -> e.getValue().equals(destination)).map(Map.Entry::getKey)
        .findFirst().orElseThrow(() -> new AssertionError("deploy/Dockerfile copies nothing to " + destination));
  }

  @Test
  void manifestsRunTheJarWhereTheImagePutsIt() throws Exception {
    assertEquals("local://" + USRLIB_JAR, deployment.at("/spec/job/jarURI").asText());
    assertEquals(USRLIB_JAR, cronEnv("KILN_JAR"));
    // The entry class exists under that name (the shaded jar's manifest names the same one).
    String entry = deployment.at("/spec/job/entryClass").asText();
    assertEquals(BuildJob.class.getName(), entry);
    assertEquals(BuildJob.class.getName(), text(execution("flink-job-jar"), "mainClass"));
    // Both run the same image, and the CronJob runs the script the image installs.
    assertEquals(deployment.at("/spec/image").asText(), rebuildContainer().get("image").asText());
    String script = rebuildContainer().at("/command/0").asText();
    assertEquals("deploy/rebuild.sh", copySourceTo(script));
  }

  @Test
  void everyCopySourceIsWhatMavenPackageWrites() throws Exception {
    String version = text((Element) pom.getElementsByTagName("parent").item(0), "version");
    String artifact = "kiln-jobs-" + version;
    String classifier = text(execution("flink-job-jar"), "shadedClassifierName");
    // What target/ holds after 'mvn package': the plain jar, the test jar and the shaded job jar. The image's
    // glob must pick the shaded one, exactly.
    List<String> jars = List.of(artifact + ".jar", artifact + "-tests.jar", artifact + "-" + classifier + ".jar");
    String jarSource = copySourceTo(USRLIB_JAR);
    var glob = FileSystems.getDefault().getPathMatcher("glob:" + jarSource);
    assertEquals(List.of("jobs/target/" + artifact + "-flink.jar"),
        jars.stream().map(j -> "jobs/target/" + j).filter(j -> glob.matches(Path.of(j))).toList(), jarSource);

    assertEquals("${project.build.directory}/flink-lib", text(execution("flink-lib"), "outputDirectory"));
    assertEquals("jobs/target/flink-lib/", copySourceTo("/opt/flink/lib/"));
    assertEquals("${project.build.directory}/flink-plugins/s3-fs-presto", text(execution("flink-plugins"), "outputDirectory"));
    assertEquals("jobs/target/flink-plugins/s3-fs-presto/", copySourceTo("/opt/flink/plugins/s3-fs-presto/"));
    assertTrue(Files.isExecutable(root.resolve("deploy/rebuild.sh")));

    // After 'mvn package' the files are there too: the glob matches the one shaded jar (none where scripts/kiln
    // packaged with the shade skipped), flink-lib holds a jar per native library NativeLibraries checks.
    Path target = root.resolve("jobs/target");
    if (Files.isDirectory(target)) {
      try (Stream<Path> files = Files.list(target)) {
        List<String> matched = files.map(f -> root.relativize(f).toString()).filter(f -> glob.matches(Path.of(f))).toList();
        assertTrue(matched.size() <= 1, jarSource + " matches " + matched);
      }
    }
    if (Files.isDirectory(target.resolve("flink-lib"))) {
      Set<String> libJars = fileNames(target.resolve("flink-lib"));
      for (String mavenName : nativeClasses().values()) {
        String artifactId = mavenName.substring(mavenName.indexOf(':') + 1);
        assertTrue(libJars.stream().anyMatch(j -> j.startsWith(artifactId + "-") || j.startsWith(artifactId + "_gpu-")),
            artifactId + " in " + libJars);
      }
    }
    if (Files.isDirectory(target.resolve("flink-plugins"))) {
      assertTrue(fileNames(target.resolve("flink-plugins/s3-fs-presto")).stream().anyMatch(j -> j.startsWith("flink-s3-fs-presto-")));
    }

    // The build context holds what the COPYs read and nothing else.
    List<String> ignore = Files.readAllLines(root.resolve("deploy/Dockerfile.dockerignore")).stream()
        .map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
    assertEquals("*", ignore.get(0));
    assertEquals(new TreeSet<>(copies.keySet()),
        ignore.stream().skip(1).map(l -> l.substring(1)).collect(Collectors.toCollection(TreeSet::new)));
  }

  static Set<String> fileNames(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(f -> f.getFileName().toString()).collect(Collectors.toCollection(TreeSet::new));
    }
  }

  @SuppressWarnings("unchecked")
  static Map<String, String> nativeClasses() throws Exception {
    Field f = NativeLibraries.class.getDeclaredField("NATIVE_CLASSES");
    f.setAccessible(true);
    return (Map<String, String>) f.get(null);
  }

  static Set<String> patterns(String value) {
    return Arrays.stream(value.split(";")).map(String::strip).collect(Collectors.toCollection(TreeSet::new));
  }

  @Test
  void parentFirstPatternsCoverEveryNativeLibraryClassAndMatchTheTestedSetup() throws Exception {
    String key = "classloader.parent-first-patterns.additional";
    Set<String> image = patterns(imageConfig.get(key));
    assertEquals(image, patterns(deployment.at("/spec/flinkConfiguration").get(key).asText()));
    // What SeveralBuildsITCase gives its real TaskManager, the setup shown to work.
    String tested = SeveralBuildsITCase.PARENT_FIRST.substring(SeveralBuildsITCase.PARENT_FIRST.indexOf('[') + 1,
        SeveralBuildsITCase.PARENT_FIRST.indexOf(']')).replace("\"", "").replace(',', ';');
    assertEquals(patterns(tested), image);
    for (String cls : nativeClasses().keySet()) {
      assertTrue(image.stream().anyMatch(cls::startsWith), cls + " not parent-first in " + image);
    }
    // Every group the flink-lib copy takes is one the patterns load parent-first or a plain dependency of it.
    String groups = text(execution("flink-lib"), "includeGroupIds");
    for (String mavenName : nativeClasses().values()) {
      assertTrue(Arrays.asList(groups.split(",")).contains(mavenName.substring(0, mavenName.indexOf(':'))), mavenName);
    }
  }

  @Test
  void djlRunsOfflineInEveryFlinkProcessOfTheImageAndTheDeployment() {
    assertFalse(imageConfig.containsKey("env.java.opts.all"), "the image would drop Flink's module openings");
    JsonNode conf = deployment.at("/spec/flinkConfiguration");
    Map<String, String> opts = new LinkedHashMap<>();
    for (String process : List.of("taskmanager", "jobmanager", "client")) {
      opts.put("image " + process, imageConfig.get("env.java.opts." + process));
    }
    for (String process : List.of("taskmanager", "jobmanager")) {
      JsonNode value = conf.get("env.java.opts." + process);
      assertNotNull(value, "FlinkDeployment env.java.opts." + process);
      opts.put("deployment " + process, value.asText());
    }
    opts.forEach((where, value) -> {
      assertNotNull(value, where);
      for (String flag : DJL_OFFLINE) {
        assertTrue(value.contains(flag), where + " lacks " + flag + ": " + value);
      }
      assertTrue(value.contains("--add-modules jdk.incubator.vector"), where);
    });
    // The operator's config replaces the image's: main() in the JobManager needs java.util open regardless.
    assertTrue(opts.get("deployment jobmanager").contains("--add-opens=java.base/java.util=ALL-UNNAMED"));
  }

  @Test
  void imageIsTheFlinkVersionTheJobIsBuiltAgainst() {
    String flink = EnvironmentInformation.getVersion();
    String image = args.get("FLINK_IMAGE");
    assertTrue(image.startsWith("flink:" + flink + "-") && image.endsWith("-java21"), image + " for Flink " + flink);
    assertTrue(dockerfile.contains("FROM ${FLINK_IMAGE}"), "the image is FROM the FLINK_IMAGE argument");
    String[] v = flink.split("\\.");
    assertEquals("v" + v[0] + "_" + v[1], deployment.at("/spec/flinkVersion").asText());
  }

  @Test
  void buildConfigIsMountedWhereTheManifestsReadIt() {
    List<String> jobArgs = new ArrayList<>();
    deployment.at("/spec/job/args").forEach(a -> jobArgs.add(a.asText()));
    String config = jobArgs.get(jobArgs.indexOf("--config") + 1);
    assertEquals(config, cronEnv("KILN_CONFIG"));
    String dir = Path.of(config).getParent().toString();
    List<String> mounts = new ArrayList<>();
    deployment.at("/spec/podTemplate/spec/containers/0/volumeMounts").forEach(m -> mounts.add(m.get("mountPath").asText()));
    assertTrue(mounts.contains(dir), "FlinkDeployment mounts " + mounts);
    mounts.clear();
    rebuildContainer().get("volumeMounts").forEach(m -> mounts.add(m.get("mountPath").asText()));
    assertTrue(mounts.contains(dir), "CronJob mounts " + mounts);
    // A mount there must not hide the script the image installs beside it.
    assertFalse(copies.containsValue(dir + "/rebuild.sh"));
  }
}
