# Sourced by scripts/kiln: a JVM ahead-of-time cache for `kiln build` (JDK 25+: the classes it loads,
# already parsed and linked, and the method profiles of an earlier run, so the JIT compiles the hot
# code sooner). A 1 % rebuild of a million chunks is a 30-s job in a fresh JVM, a quarter of whose CPU
# went to class loading and JIT compiling; a nightly rebuild runs the same code as the night before.
# The CLI's class path (search, serve, eval, ...) keeps one too ("cli"), trained by a `kiln search` of any
# length and used by every command on that class path: a one-shot search is mostly a cold start, whose
# time went to loading some 6,000 classes (issue 47.4; scripts/bench-cold-open.sh measures it).
#
# The first build of a given set of jars (and JVM, heap and KILN_JAVA_OPTS) records what the cache
# needs; the cache is written (seconds more) only when that build succeeded and ran at least
# KILN_AOT_MIN_TRAINING_S seconds (default 10), so a `--help` or a failed run never becomes the
# profile. Later builds with the same jars use it; a rebuilt jar changes the key, and the next build
# trains anew (older caches of the command are removed).
# KILN_AOT=off turns it off. Caches live in $KILN_CACHE_DIR/aot (about 120 MB each).
#
#   kiln_aot_prepare NAME CLASSPATH DIR [use]      sets KILN_AOT_ARGS (JVM options, possibly none); with
#       "use", only an existing cache (this run never trains one: a server's run has no clean end)
#   kiln_aot_finish EXIT_CODE ELAPSED_S JVM_OPTION...   (KILN_AOT_MIN_TRAINING_S: the least ELAPSED_S)
#       after the JVM exits: from a training run, writes the cache (the JVM's create step, with the
#       run's own options and class path, its output in a log) or drops the recording

kiln_aot_prepare() {
  local name="$1" cp="$2" dir="$3" use_only="${4:-}"
  KILN_AOT_ARGS=()
  KILN_AOT_PENDING=""
  KILN_AOT_FINAL=""
  KILN_AOT_DIR="$dir"
  KILN_AOT_NAME="$name"
  KILN_AOT_CP="$cp"
  [[ "${KILN_AOT:-on}" == "off" ]] && return 0
  local major
  major="$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$JAVA_HOME/release" 2>/dev/null)"
  [[ -n "$major" && "$major" -ge 25 ]] || return 0
  local entries e
  IFS=: read -r -a entries <<< "$cp"
  for e in "${entries[@]}"; do
    # The JVM dumps a cache only for a class path of jars (it refuses non-empty directories).
    [[ "$e" == *.jar && -f "$e" ]] || return 0
  done
  local key
  key="$({ cat "$JAVA_HOME/release"; echo "${KILN_HEAP:-4g} ${KILN_JAVA_OPTS:-}"; stat -c '%n %s %Y' "${entries[@]}"; } \
    | sha256sum | cut -c1-16)"
  KILN_AOT_FINAL="$dir/$name-$key.aot"
  # JVM messages (a cache that cannot be mapped, the recording's closing line) go to stderr, so a
  # command's stdout (--json) holds only its own output; the AOT code's warnings (classes it leaves
  # out of the cache, hundreds of them) are not the user's business.
  local quiet=(-XX:+DisplayVMOutputToStderr -Xlog:disable -Xlog:all=warning:stderr -Xlog:aot*=error:stderr)
  if [[ -f "$KILN_AOT_FINAL" ]]; then
    KILN_AOT_ARGS=("-XX:AOTCache=$KILN_AOT_FINAL" "${quiet[@]}")
  elif [[ "$use_only" != "use" ]] && mkdir -p "$dir" 2>/dev/null && [[ -w "$dir" ]]; then
    # Recorded and written under names of this process, renamed once complete: a concurrent build
    # never maps a half-written file.
    KILN_AOT_PENDING="$dir/.$name-$key.$$.aot"
    KILN_AOT_ARGS=(-XX:AOTMode=record "-XX:AOTConfiguration=$KILN_AOT_PENDING.config" "${quiet[@]}")
  fi
}

kiln_aot_finish() {
  local code="$1" elapsed="$2"
  shift 2
  [[ -n "$KILN_AOT_PENDING" ]] || return 0
  local log="$KILN_AOT_PENDING.log"
  if [[ "$code" == 0 && "$elapsed" -ge "${KILN_AOT_MIN_TRAINING_S:-10}" && -s "$KILN_AOT_PENDING.config" ]]; then
    local started=$SECONDS
    if java "$@" -XX:AOTMode=create "-XX:AOTConfiguration=$KILN_AOT_PENDING.config" \
        "-XX:AOTCache=$KILN_AOT_PENDING" -cp "$KILN_AOT_CP" > "$log" 2>&1 && [[ -s "$KILN_AOT_PENDING" ]]; then
      local old
      for old in "$KILN_AOT_DIR/$KILN_AOT_NAME"-*.aot; do
        [[ -f "$old" && "$old" != "$KILN_AOT_FINAL" ]] && rm -f "$old"
      done
      mv -f "$KILN_AOT_PENDING" "$KILN_AOT_FINAL"
      echo "kiln: wrote a JVM AOT cache for later '$KILN_AOT_NAME' runs in $((SECONDS - started)) s:" \
        "$KILN_AOT_FINAL (KILN_AOT=off to disable)" >&2
    else
      mv -f "$log" "$KILN_AOT_DIR/$KILN_AOT_NAME-failed.log"
      echo "kiln: could not write the JVM AOT cache; the build is unaffected" \
        "(see $KILN_AOT_DIR/$KILN_AOT_NAME-failed.log)" >&2
    fi
  fi
  rm -f "$KILN_AOT_PENDING" "$KILN_AOT_PENDING.config" "$log"
}
