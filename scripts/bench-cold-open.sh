#!/usr/bin/env bash
# Cold open of `kiln search` and `kiln serve` (issue 47.4): each run a fresh JVM through scripts/kiln, A
# (KILN_AOT=off: no JVM AOT cache) and B (the launcher's AOT cache of the CLI, trained by an untimed search
# first) alternated A B A B ... for --pairs pairs (default 3). Per run, from the launcher's KILN_TIMINGS
# lines (milliseconds since the process started, as the OS records it): main (JVM start + class loading up
# to the command), open (the snapshot opened: "open" = process start to searcher ready), first_query (the
# first answer, the query model's load included), then --warm N (default 3) warm queries and warm re-opens
# in the same JVM; with --serve, the same for `kiln serve` (ready = listening, first and warm queries over
# HTTP). wall_ms is the launcher's whole run, its bash and the JVM's exit included; run_cpu_ms its CPU time
# and *_cpu_ms the JVM's CPU time at each milestone (all threads): figures a shared machine's load stretches less.
#   scripts/bench-cold-open.sh --snapshots DIR [--pairs 3] [--warm 3] [--query TEXT] [--mode hybrid]
#                              [--serve] [--evict] [--out FILE]
#                              [--a-env K=V ... --b-env K=V ... [--a-kiln L] [--b-kiln L] [--a-name A] [--b-name B]]
# --a-env / --b-env (repeatable): compare two settings of the launcher's environment instead (both with the
# AOT cache unless one sets KILN_AOT=off), e.g. --b-env KILN_JAVA_OPTS=-XX:+UseSerialGC: a lever's A/B. Give
# each variant its own KILN_CACHE_DIR when their JVM options differ (an AOT cache is keyed by them, and
# writing one removes the others of its directory); each variant is trained by one untimed search first.
# --a-kiln / --b-kiln: the launcher each variant runs (default this checkout's scripts/kiln), e.g. a copy of
# the checkout at another commit, for a lever in the code.
# --evict: before each run, drops the snapshot's files, the jars, the model and the AOT cache from the page
# cache (posix_fadvise DONTNEED: no root needed; pages another process maps stay); without it the page
# cache is as found (warm after the first run), and the JSON says which. Prints one JSON object (and
# writes it to --out); a summary per variant and metric: median, min, max; per pair the ratio B/A of open.
set -euo pipefail
KILN_HOME="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$KILN_HOME/scripts/lib/java-env.sh"
if [[ " $* " == *" --help "* || $# -eq 0 ]]; then
  sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
  [[ $# -eq 0 ]] && exit 2 || exit 0
fi
exec python3 - "$KILN_HOME" "$@" <<'PY'
import argparse, glob, json, os, re, resource, statistics, subprocess, sys, tempfile, time, urllib.parse, urllib.request

home = sys.argv[1]
p = argparse.ArgumentParser(prog="bench-cold-open.sh")
p.add_argument("--snapshots", required=True)
p.add_argument("--pairs", type=int, default=3)
p.add_argument("--warm", type=int, default=3)
p.add_argument("--query", default="how do glaciers move")
p.add_argument("--mode", default="hybrid")
p.add_argument("--serve", action="store_true")
p.add_argument("--evict", action="store_true")
p.add_argument("--out")
p.add_argument("--a-env", action="append", default=[])
p.add_argument("--b-env", action="append", default=[])
p.add_argument("--a-kiln", default=None)
p.add_argument("--b-kiln", default=None)
p.add_argument("--a-name", default=None)
p.add_argument("--b-name", default=None)
try:
    a = p.parse_args(sys.argv[2:])
except SystemExit as e:
    sys.exit(2 if e.code else 0)
if a.pairs < 1 or a.warm < 0:
    print("bench-cold-open: --pairs must be >= 1 and --warm >= 0", file=sys.stderr)
    sys.exit(2)
if not os.path.isfile(os.path.join(a.snapshots, "CURRENT")):
    print(f"bench-cold-open: {a.snapshots} holds no published snapshot (no CURRENT)", file=sys.stderr)
    sys.exit(2)
def assignments(items, flag):
    out = {}
    for item in items:
        k, eq, v = item.partition("=")
        if not eq or not k:
            print(f"bench-cold-open: {flag} takes KEY=VALUE, was '{item}'", file=sys.stderr)
            sys.exit(2)
        out[k] = v
    return out


LEVER = bool(a.a_env or a.b_env or a.a_kiln or a.b_kiln)
A_ENV, B_ENV = assignments(a.a_env, "--a-env"), assignments(a.b_env, "--b-env")
A_NAME = a.a_name or ("a" if LEVER else "no_aot")
B_NAME = a.b_name or ("b" if LEVER else "aot")
if A_NAME == B_NAME:
    print("bench-cold-open: --a-name and --b-name must differ", file=sys.stderr)
    sys.exit(2)
kiln = os.path.join(home, "scripts", "kiln")
KILN = {A_NAME: a.a_kiln or kiln, B_NAME: a.b_kiln or kiln}
cache = os.environ.get("KILN_CACHE_DIR", os.path.join(home, "kiln-data", "cache"))
TIMING = re.compile(r"^kiln-timing (\{.*\})$")


def log(msg):
    print("bench-cold-open: " + msg, file=sys.stderr, flush=True)


def loadavg():
    with open("/proc/loadavg") as f:
        return f.read().strip()


def evict():
    """Drops the files a cold start reads from the page cache (no root needed for files we can open)."""
    caches = {cache, A_ENV.get("KILN_CACHE_DIR", cache), B_ENV.get("KILN_CACHE_DIR", cache)}
    paths = [a.snapshots] + [os.path.join(c, d) for c in sorted(caches) for d in ("aot", "models", "djl")]
    files = []
    for launcher in sorted(set(KILN.values())):
        tree = os.path.dirname(os.path.dirname(os.path.abspath(launcher)))
        cp = os.path.join(tree, "cli", "target", "classpath.txt")
        if os.path.isfile(cp):
            files += open(cp).read().strip().split(":")
        files += glob.glob(os.path.join(tree, "cli", "target", "kiln-cli-*.jar"))
        files += glob.glob(os.path.join(tree, "cli", "target", "light-logging", "*.jar"))
    for root in paths:
        for d, _, names in os.walk(root, followlinks=True):
            files += [os.path.join(d, n) for n in names]
    n = 0
    for f in files:
        try:
            fd = os.open(f, os.O_RDONLY)
        except OSError:
            continue
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            n += 1
        finally:
            os.close(fd)
    return n


def env(variant):
    e = dict(os.environ, KILN_TIMINGS="1", KILN_TIMINGS_WARM=str(a.warm))
    if LEVER:
        e.update(A_ENV if variant == A_NAME else B_ENV)
    elif variant == "no_aot":
        e["KILN_AOT"] = "off"
    else:
        e.pop("KILN_AOT", None)
    return e


def timings(stderr):
    out = {}
    for line in stderr.splitlines():
        m = TIMING.match(line.strip())
        if m:
            t = json.loads(m.group(1))
            ev = t["event"]
            if ev.endswith("_warm"):
                out.setdefault(ev + "_ms", []).append(t["ms"])
            else:
                out[ev + "_ms"] = t["ms"]
                out[ev + "_since_start_ms"] = t["since_start_ms"]
                out[ev + "_cpu_ms"] = t.get("cpu_ms")
    return out


def search_run(variant):
    t0 = time.monotonic()
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run([KILN[variant], "search", "--json", "--snapshots", a.snapshots, "--mode", a.mode, a.query],
                       env=env(variant), capture_output=True, text=True, stdin=subprocess.DEVNULL)
    wall = (time.monotonic() - t0) * 1000
    if "kiln: building the jars" in r.stderr:
        raise SystemExit("bench-cold-open: the launcher rebuilt the jars during a timed run (sources newer than"
                         " them): build first, then measure")
    if r.returncode != 0:
        raise SystemExit(f"bench-cold-open: kiln search failed ({r.returncode}): {r.stderr[-2000:]}")
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    row = {"command": "search", "variant": variant, "wall_ms": round(wall, 1),
           "run_cpu_ms": round((cpu1.ru_utime + cpu1.ru_stime - cpu0.ru_utime - cpu0.ru_stime) * 1000, 1)}
    row.update(timings(r.stderr))
    row["hits"] = len(json.loads(r.stdout)["results"])
    return row


def http_ms(url):
    t0 = time.monotonic()
    with urllib.request.urlopen(url, timeout=120) as resp:
        resp.read()
    return (time.monotonic() - t0) * 1000


def serve_run(variant):
    t0 = time.monotonic()
    err_file = tempfile.TemporaryFile(mode="w+")  # a file, not a pipe: a chatty server never blocks on it
    proc = subprocess.Popen([KILN[variant], "serve", "--snapshots", a.snapshots, "--host", "127.0.0.1", "--port", "0"],
                            env=env(variant), stdout=subprocess.PIPE, stderr=err_file, text=True,
                            stdin=subprocess.DEVNULL)
    row = {"command": "serve", "variant": variant}
    try:
        port = None
        deadline = time.monotonic() + 300
        while port is None and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                err_file.seek(0)
                raise SystemExit("bench-cold-open: kiln serve exited: " + err_file.read()[-2000:])
            m = re.search(r"on http://127\.0\.0\.1:(\d+)", line)
            port = m and int(m.group(1))
        row["ready_wall_ms"] = round((time.monotonic() - t0) * 1000, 1)
        q = urllib.parse.urlencode({"q": a.query, "mode": a.mode})
        url = f"http://127.0.0.1:{port}/search?{q}"
        row["first_query_http_ms"] = round(http_ms(url), 1)
        row["query_warm_http_ms"] = [round(http_ms(url), 1) for _ in range(a.warm)]
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        err_file.seek(0)
        err = err_file.read()
        err_file.close()
    row.update(timings(err))
    return row


def summary(rows):
    out = {}
    for variant in (A_NAME, B_NAME):
        mine = [r for r in rows if r["variant"] == variant]
        keys = sorted({k for r in mine for k, v in r.items() if k.endswith("_ms") and isinstance(v, (int, float))})
        s = {}
        for k in keys:
            vals = [r[k] for r in mine if isinstance(r.get(k), (int, float))]
            s[k] = {"median": statistics.median(vals), "min": min(vals), "max": max(vals), "n": len(vals)}
        for k in sorted({k for r in mine for k, v in r.items() if isinstance(v, list)}):
            vals = [x for r in mine for x in r.get(k, [])]
            if vals:
                s[k] = {"median": statistics.median(vals), "min": min(vals), "max": max(vals), "n": len(vals)}
        out[variant] = s
    return out


def ratios(rows, key):
    a_rows = [r for r in rows if r["variant"] == A_NAME]
    b_rows = [r for r in rows if r["variant"] == B_NAME]
    rs = [b[key] / x[key] for x, b in zip(a_rows, b_rows) if x.get(key) and b.get(key)]
    return {"per_pair": [round(r, 3) for r in rs], "median": statistics.median(rs) if rs else None,
            "min": min(rs) if rs else None, "max": max(rs) if rs else None}


def git(*args):
    try:
        return subprocess.run(["git", "-C", home, *args], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "unknown"


result = {
    "commit": git("rev-parse", "HEAD"), "dirty": bool(git("status", "--porcelain", "--untracked-files=no")),
    "cpus": os.cpu_count(), "java": subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()[0],
    "snapshots": os.path.abspath(a.snapshots), "query": a.query, "mode": a.mode, "pairs": a.pairs, "warm": a.warm,
    "page_cache": "evicted before each run (posix_fadvise DONTNEED)" if a.evict
    else "as found (not dropped: the first run reads from disk, later ones mostly from the page cache)",
    "variants": {A_NAME: {"env": A_ENV, "launcher": KILN[A_NAME]}, B_NAME: {"env": B_ENV, "launcher": KILN[B_NAME]}}
    if LEVER else
    {"no_aot": "KILN_AOT=off", "aot": "the launcher's JVM AOT cache of the CLI class path"},
    "load_average": loadavg(),
}
log("training the AOT cache (an untimed search; nothing to do when it exists) ...")
for launcher, extra in ([(KILN[A_NAME], A_ENV), (KILN[B_NAME], B_ENV)] if LEVER else [(kiln, {})]):
    if extra.get("KILN_AOT") == "off":
        continue
    train = subprocess.run([launcher, "search", "--json", "--snapshots", a.snapshots, "--mode", a.mode, a.query],
                           env=dict(os.environ, KILN_AOT="on", **extra), capture_output=True, text=True,
                           stdin=subprocess.DEVNULL)
    if train.returncode != 0:
        raise SystemExit("bench-cold-open: the training search failed: " + train.stderr[-2000:])
    found = glob.glob(os.path.join(extra.get("KILN_CACHE_DIR", cache), "aot", "cli-*.aot"))
    result.setdefault("aot_cache", []).append(found[0] if found else None)
    result.setdefault("aot_cache_bytes", []).append(os.path.getsize(found[0]) if found else None)
rows = []
commands = ["search"] + (["serve"] if a.serve else [])
for pair in range(1, a.pairs + 1):
    for command in commands:
        for variant in (A_NAME, B_NAME):
            evicted = evict() if a.evict else 0
            load = loadavg()
            row = search_run(variant) if command == "search" else serve_run(variant)
            row.update({"pair": pair, "load_average_start": load, "files_evicted": evicted})
            rows.append(row)
            log(f"pair {pair} {command} {variant}: " + ", ".join(
                f"{k} {v}" for k, v in row.items() if k.endswith("_ms") and not isinstance(v, list)))
result["runs"] = rows
for command in commands:
    mine = [r for r in rows if r["command"] == command]
    key = "open_since_start_ms" if command == "search" else "ready_wall_ms"
    result[command] = {"summary": summary(mine), "open_ratio_b_vs_a": ratios(mine, key),
                       "first_answer_ratio_b_vs_a": ratios(
                           mine, "first_query_since_start_ms" if command == "search" else "first_query_http_ms")}
result["load_average_end"] = loadavg()
text = json.dumps(result, indent=2)
if a.out:
    with open(a.out, "w") as f:
        f.write(text + "\n")
print(text)
PY
