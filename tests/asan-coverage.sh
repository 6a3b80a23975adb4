#!/usr/bin/env bash
# What the sanitizer run leaves out: `make test-asan` runs the unit tests
# and the integration files of tests/asan-files.txt, not the whole suite.
# This script shows, with a coverage build (gcc --coverage, read with the
# gcov that comes with gcc: nothing to install), which lines of vbrd's
# sources the whole suite runs and that part does not. Not part of CI
# (`make asan-coverage`; ~20 minutes on the 2-core VM).
#
#   tests/asan-coverage.sh            build, run, report
#   tests/asan-coverage.sh --report   report again from the saved counts
#
# 1. meson setup build-cov -Db_coverage=true (unless it exists), ninja
# 2. the unit tests, then each integration file on its own, the counters
#    reset before and read after each (COV_OUT/NAME.json, and the file's
#    seconds in COV_OUT/seconds)
# 3. the report: lines of app/ core/ pipeline/ qos/ failover/ that the
#    unit tests and all integration files run, that the unit tests and the
#    files of tests/asan-files.txt run, the difference per source file and
#    the functions only the whole suite enters; then, for choosing the
#    list, each file's seconds and the lines no other file runs.
#
# Environment: COV_BUILD (default build-cov), COV_OUT (default
# /tmp/vbrd-coverage), VBRD_TEST_PREFIX (default cv<pid mod 10000>).
set -uo pipefail

cd "$(dirname "$0")/.."
build=${COV_BUILD:-build-cov}
out=${COV_OUT:-/tmp/vbrd-coverage}
export VBRD_TEST_PREFIX=${VBRD_TEST_PREFIX:-cv$(($$ % 10000))}

# The counters of the build's objects under DIRS as one JSON: {source:
# {"lines": {line: count}, "functions": {name: [start_line, count]}}},
# summed over the objects that compile a source (vbrd, vbrctl, unit tests).
collect() { # OUTFILE DIR...
	local dst=$1 tmp
	shift
	tmp=$(mktemp)
	(cd "$build" && find "$@" -name '*.gcda' -print0 2>/dev/null |
		xargs -0 -r -n 64 gcov --json-format --stdout 2>/dev/null) >"$tmp"
	python3 - "$tmp" "$dst" "$PWD" "$PWD/$build" <<'EOF'
import json, os, sys
src, dst, root, build = sys.argv[1:5]
text = open(src).read()
dec, i, out = json.JSONDecoder(), 0, {}
while True:
    i = text.find("{", i)   # gcov -j -t: one JSON document per object
    if i < 0:
        break
    doc, i = dec.raw_decode(text, i)
    for fi in doc.get("files", []):
        path = os.path.relpath(os.path.normpath(os.path.join(build, fi["file"])), root)
        if path.split("/")[0] not in ("app", "core", "pipeline", "qos", "failover"):
            continue
        e = out.setdefault(path, {"lines": {}, "functions": {}})
        for l in fi.get("lines", []):
            n = str(l["line_number"])
            e["lines"][n] = e["lines"].get(n, 0) + l["count"]
        for fn in fi.get("functions", []):
            name = fn.get("demangled_name", fn["name"])
            old = e["functions"].get(name, [fn["start_line"], 0])
            e["functions"][name] = [fn["start_line"], old[1] + fn["execution_count"]]
json.dump(out, open(dst, "w"))
EOF
	rm -f "$tmp"
}

report() {
	sed 's/#.*//' tests/asan-files.txt | awk 'NF {print $1}' >"$out/subset.list"
	python3 - "$out" <<'EOF'
import glob, json, os, sys
out = sys.argv[1]
subset = [l.strip() for l in open(os.path.join(out, "subset.list")) if l.strip()]
secs = {}
if os.path.exists(os.path.join(out, "seconds")):
    for l in open(os.path.join(out, "seconds")):
        n, s = l.split()
        secs[n] = int(s)
runs = {os.path.basename(p)[:-5]: json.load(open(p)) for p in glob.glob(os.path.join(out, "*.json"))}
unit = runs.pop("unit", {})
files = sorted(runs)
missing = [n for n in subset if n not in runs]
if missing:
    print("no counts for: %s" % " ".join(missing))

def lines(doc):      # {(source, line)} that ran
    return {(p, int(n)) for p, e in doc.items() for n, c in e["lines"].items() if c > 0}
def funcs(doc):
    return {(p, name, v[0]) for p, e in doc.items() for name, v in e["functions"].items() if v[1] > 0}
executable = {(p, int(n)) for d in [unit] + list(runs.values()) for p, e in d.items() for n in e["lines"]}
per = {n: lines(d) for n, d in runs.items()}
full = lines(unit).union(*per.values())
part = lines(unit).union(*[per[n] for n in subset if n in per])
ffull = funcs(unit).union(*[funcs(d) for d in runs.values()])
fpart = funcs(unit).union(*[funcs(runs[n]) for n in subset if n in runs])

print("lines of app/ core/ pipeline/ qos/ failover/: %d executable" % len(executable))
print("  unit tests + all %d integration files: %d run" % (len(files), len(full)))
print("  unit tests + the %d files of tests/asan-files.txt: %d run (%.1f %% of those), %d not"
      % (len(subset), len(part & full), 100.0 * len(part & full) / max(len(full), 1), len(full - part)))
if secs:
    print("  seconds (normal build, this run): all files %d, the list's %d"
          % (sum(secs.values()), sum(secs.get(n, 0) for n in subset)))

def ranges(ls):
    r, a = [], None
    for x in sorted(ls):
        if a is None: a = b = x
        elif x == b + 1: b = x
        else: r.append((a, b)); a = b = x
    if a is not None: r.append((a, b))
    return ", ".join(str(a) if a == b else "%d-%d" % (a, b) for a, b in r)

gap = {}
for p, n in full - part:
    gap.setdefault(p, []).append(n)
if gap:
    print("\nlines only the whole suite runs, per source file (count: lines; the file that runs them):")
    for p in sorted(gap, key=lambda p: -len(gap[p])):
        who = sorted({f for f in files if any((p, n) in per[f] for n in gap[p])},
                     key=lambda f: -sum((p, n) in per[f] for n in gap[p]))
        print("  %-34s %4d: %s  (%s)" % (p, len(gap[p]), ranges(gap[p]), " ".join(who[:4])))
fm = sorted(ffull - fpart)
if fm:
    print("\nfunctions only the whole suite enters:")
    for p, name, line in fm:
        print("  %s:%d %s" % (p, line, name))

print("\nper file: seconds, lines it runs, lines no other file (nor the unit tests) runs")
ul = lines(unit)
for n in sorted(files, key=lambda f: -len(per[f] - ul.union(*[per[g] for g in files if g != f]))):
    own = per[n] - ul.union(*[per[g] for g in files if g != n])
    print("  %-18s %4s s %6d %5d %s" % (n, secs.get(n, "?"), len(per[n]), len(own),
                                        "(in the list)" if n in subset else ""))
EOF
}

if [ "${1:-}" != --report ]; then
	if [ ! -f "$build/build.ninja" ]; then
		meson setup "$build" -Db_coverage=true || exit 1
	fi
	ninja -C "$build" || exit 1
	rm -rf "$out"
	mkdir -p "$out"
	find "$build" -name '*.gcda' -delete
	meson test -C "$build" >"$out/unit.log" 2>&1 || echo "unit tests failed: $out/unit.log"
	collect "$out/unit.json" .
	for f in tests/tcl/test_*.tcl; do
		n=$(basename "$f" .tcl)
		n=${n#test_}
		find "$build" -name '*.gcda' -delete
		t0=$SECONDS
		BUILD=$build ./tests/run-tests.sh --no-unit "$n" >"$out/$n.log" 2>&1
		echo "$n $((SECONDS - t0))" >>"$out/seconds"
		echo "$n: $((SECONDS - t0)) s, $(tail -n 1 "$out/$n.log")"
		# the integration tests run vbrd, vbrctl and the lab tools only
		collect "$out/$n.json" app tests/tools
	done
fi
report | tee "$out/report.txt"
