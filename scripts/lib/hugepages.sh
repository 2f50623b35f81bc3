# Sourced by scripts/kiln and scripts/bench-scale.sh: the Java heap on transparent huge pages where the
# kernel gives them only on request (/sys/kernel/mm/transparent_hugepage/enabled reads "[madvise]",
# the default of many distributions). A build's heap grows to a few GB within seconds and every
# fresh 4-KB page is a fault the kernel zeroes: a 1 % rebuild of a million chunks took 0.65-1.1
# million minor faults and 7.5-17 s of system CPU on two cores; with 2-MB pages 0.09 million faults
# and 7-10 s, and 0.2-12 s less wall time in three pairs run alternately (docs/results/scale.md,
# run (l)). Under "[always]" the kernel does this unasked, under "[never]" the JVM could not (it would
# warn on stdout), so the option is added only for "[madvise]". KILN_THP=off leaves it out.
#
#   kiln_hugepage_args        sets KILN_HUGEPAGE_ARGS (JVM options, possibly none)

kiln_hugepage_args() {
  KILN_HUGEPAGE_ARGS=()
  [[ "${KILN_THP:-on}" == "off" ]] && return 0
  local mode
  mode="$(cat "${KILN_THP_SYSFS:-/sys/kernel/mm/transparent_hugepage/enabled}" 2>/dev/null || true)"
  [[ "$mode" == *"[madvise]"* ]] && KILN_HUGEPAGE_ARGS=(-XX:+UseTransparentHugePages)
  return 0
}
