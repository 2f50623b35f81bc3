# Sourced by the scripts in scripts/: picks a JDK 21+ (JAVA_HOME if it is one, else Temurin 25, which
# every Kiln machine has) and puts it first on PATH. Exits 2 when there is none.
kiln_temurin=/usr/lib/jvm/temurin-25-jdk-amd64
if [[ -z "${JAVA_HOME:-}" ]] || ! "${JAVA_HOME}/bin/java" -version 2>&1 | grep -qE 'version "(2[1-9]|[3-9][0-9])'; then
  if [[ -x "$kiln_temurin/bin/java" ]]; then
    export JAVA_HOME="$kiln_temurin"
  else
    echo "kiln: needs a JDK 21 or newer: set JAVA_HOME" >&2
    exit 2
  fi
fi
export PATH="$JAVA_HOME/bin:$PATH"
