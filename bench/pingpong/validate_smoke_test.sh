#!/usr/bin/env bash
# -----------------------------------------------------------------------------
# bench/pingpong/validate_smoke_test.sh
# -----------------------------------------------------------------------------
#
# The validation mode for a moment (--validate --profile=smoke), with fixture
# winners files: a well-formed one (one winner equal to its baseline, one
# micro ratio null), a malformed one and a missing one (both fall back to the
# defaults and say so). Checks the verdict table, the JSON under "validation"
# (the sweep's keys already there kept), that the logger runs wrote log lines
# and that their files were deleted; then load_winners() on odd shapes.
set -euo pipefail
tmp="${TEST_TMPDIR:-$(mktemp -d)}/validate"
mkdir -p "$tmp"
fail() { echo "FAIL: $*"; exit 1; }
run() {  # run NAME ARGS...: the validation, output in $tmp/NAME.txt
  local name=$1
  shift
  bench/pingpong/sweep --profile=smoke --validate --validate_seconds=0.2 \
    --out="$tmp/$name.json" "$@" >"$tmp/$name.txt" 2>&1 ||
    { cat "$tmp/$name.txt"; fail "$name: sweep --validate exited non-zero"; }
  cat "$tmp/$name.txt"
}

# 1. Well-formed winners; an earlier sweep's JSON already at --out.
cat >"$tmp/good-winners.json" <<'EOF'
{"queues": {"ignored": true},
 "reactor": {
  "task_queue": {"winner": "moodycamel", "baseline": "swap-vector",
                 "micro_ratio": 2.5, "cv": 0.04,
                 "source": "queues/eventloop/producers:2/coalesce:1"},
  "buffer": {"winner": "linear", "baseline": "linear", "micro_ratio": 1.0,
             "source": "buffer/x", "cv": null},
  "logger": {"winner": "async-double-buffer", "baseline": "sync",
             "micro_ratio": null, "source": null, "cv": null}}}
EOF
echo '{"context": {"profile": "smoke"}, "echo": [{"server": "x"}], "header": []}' \
  >"$tmp/good.json"
run good --winners="$tmp/good-winners.json"
grep -q "^validation verdicts (winners from winners.json" "$tmp/good.txt" ||
  fail "good: no verdict table"
grep -Eq "^task_queue +reply-via-queue +swap-vector -> moodycamel +2.50x +[0-9.]+x \(\+-[0-9.]+%\)" \
  "$tmp/good.txt" || fail "good: no task_queue row with micro and e2e ratios"
grep -Eq "^buffer .*winner is the baseline; nothing to validate" "$tmp/good.txt" ||
  fail "good: buffer winner == baseline not reported"
grep -Eq "^logger +log-per-message +sync -> async-double-buffer +n/a .*\(micro n/a\)" \
  "$tmp/good.txt" || fail "good: logger row without micro n/a"
grep -q "^verdict: task_queue: moodycamel's 2.50x over swap-vector" "$tmp/good.txt" ||
  fail "good: no verdict sentence"

# 2. Malformed JSON: defaults, said so.
echo '{"reactor": {"task_queue": ' >"$tmp/bad-winners.json"
run bad --winners="$tmp/bad-winners.json" --validate_components=task_queue,logger
grep -q "^note: cannot read .*bad-winners.json" "$tmp/bad.txt" ||
  fail "bad: malformed winners.json not reported"
grep -Eq "^task_queue .*swap-vector -> bounded-mpmc +n/a .*\[default\]" "$tmp/bad.txt" ||
  fail "bad: task_queue did not fall back to the defaults"

# 3. Missing file: defaults, said so.
run missing --winners="$tmp/no-such-winners.json" --validate_components=buffer
grep -q "^note: .*no-such-winners.json not found: default winners" "$tmp/missing.txt" ||
  fail "missing: absent winners.json not reported"
grep -Eq "^buffer +echo-16k +linear -> ring +n/a" "$tmp/missing.txt" ||
  fail "missing: no buffer 16 KiB row with the defaults"
grep -Eq "^buffer +echo-4k +linear -> ring" "$tmp/missing.txt" ||
  fail "missing: no buffer 4 KiB row"

/usr/bin/python3 - "$tmp" <<'PY'
import glob, json, os, sys
tmp = sys.argv[1]
sys.path.insert(0, "bench/pingpong")
import validate

good = json.load(open(os.path.join(tmp, "good.json")))
assert good["echo"] == [{"server": "x"}], "earlier sweep keys lost"
assert good["context"] == {"profile": "smoke"}, good["context"]
v = good["validation"]
assert v["winners"] == "winners.json", v["winners"]
rows = {r["component"]: r for r in v["rows"]}
assert set(rows) == {"task_queue", "buffer", "logger"}, rows.keys()
assert rows["buffer"]["verdict"] == validate.SAME, rows["buffer"]
assert not rows["buffer"]["records"], "ran a component whose winner is its baseline"
for c in ("task_queue", "logger"):
    r = rows[c]
    assert r["verdict"].split(" (")[0] in ("held", "no difference", "refuted"), r
    assert r["e2e_ratio"] and r["e2e_ratio"] > 0, r
    assert len(r["baseline_runs"]) == len(r["winner_runs"]) == 1, r
    assert r["e2e_ratio"] == r["winner_median"] / r["baseline_median"], r
    assert all(x["ok"] for x in r["records"]), r["records"]
    assert "sentence" in r
    assert r["cpu_ratio"] and r["cpu_ratio"] > 0, r
assert rows["task_queue"]["micro_ratio"] == 2.5
assert rows["task_queue"]["micro_source"].startswith("queues/eventloop")
assert rows["logger"]["verdict"].endswith("(micro n/a)"), rows["logger"]
assert "--reply_via_queue" in rows["task_queue"]["winner_flags"]
assert all(b > 0 for b in rows["logger"]["log_bytes"]), rows["logger"]["log_bytes"]
assert not glob.glob(os.path.join(tmp, ".validate-logs-*")), "log files left behind"

bad = json.load(open(os.path.join(tmp, "bad.json")))["validation"]
assert bad["winners"] == "defaults" and bad["notes"], bad["notes"]
assert [r["component"] for r in bad["rows"]] == ["task_queue", "logger"]
assert bad["rows"][0]["winner"] == "bounded-mpmc" and bad["rows"][0]["micro_ratio"] is None
missing = json.load(open(os.path.join(tmp, "missing.json")))["validation"]
assert [r["case"] for r in missing["rows"]] == ["echo-16k", "echo-4k"], missing["rows"]
assert all(r["origin"] == "default" for r in missing["rows"])

# load_winners on odd shapes: never raises, falls back per component.
def load(text):
    p = os.path.join(tmp, "shape.json")
    with open(p, "w") as f:
        f.write(text)
    return validate.load_winners(p)
e, notes = load('[1, 2]')
assert all(x["origin"] == "default" for x in e.values()) and notes
e, notes = load('{"reactor": {"buffer": {"winner": "mirrored", "micro_ratio": "fast"},'
                ' "task_queue": "moodycamel", "logger": {"baseline": "sync"}}}')
assert e["buffer"] == dict(winner="mirrored", baseline="linear", micro_ratio=None,
                           source=None, cv=None, origin="winners.json"), e["buffer"]
assert e["task_queue"]["origin"] == "default" and e["task_queue"]["winner"] == "bounded-mpmc"
assert e["logger"]["winner"] == "async-queue-bounded-mpmc"
assert len(notes) == 3, notes  # buffer baseline, task_queue and logger malformed
e, notes = load('{"reactor": {}}')
assert len(notes) == 3 and all(x["origin"] == "default" for x in e.values())
# The verdict rule.
assert validate.decide([100, 100, 100], [110, 111, 109])[3] == "held"
assert validate.decide([100, 100, 100], [90, 91, 89])[3] == "refuted"
assert validate.decide([100, 100, 100], [101, 99, 102])[3] == "no difference"
assert validate.decide([100, 100, 100], [130, 100, 110])[3] == "no difference"  # noisy
print("validate smoke: OK")
PY
