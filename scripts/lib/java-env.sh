# Sourced by the scripts in scripts/: picks a JDK 21+ (JAVA_HOME if it is one, else Temurin 25, which
# every Kiln machine has) and puts it first on PATH. Exits 2 when there is none.
# The JDK's release file says its version without starting a JVM (java -version costs a cold `kiln search`
# some 50 ms: issue 47.4); a JDK without one is asked.
kiln_temurin=/usr/lib/jvm/temurin-25-jdk-amd64
kiln_jdk_ok() {
  [[ -x "$1/bin/java" ]] || return 1
  if [[ -f "$1/release" ]]; then
    grep -qE '^JAVA_VERSION="(2[1-9]|[3-9][0-9])' "$1/release"
  else
    "$1/bin/java" -version 2>&1 | grep -qE 'version "(2[1-9]|[3-9][0-9])'
  fi
}
if [[ -z "${JAVA_HOME:-}" ]] || ! kiln_jdk_ok "$JAVA_HOME"; then
  if [[ -x "$kiln_temurin/bin/java" ]]; then
    export JAVA_HOME="$kiln_temurin"
  else
    echo "kiln: needs a JDK 21 or newer: set JAVA_HOME" >&2
    exit 2
  fi
fi
export PATH="$JAVA_HOME/bin:$PATH"
