#!/usr/bin/env bash
# The step of action.yml. A `uses: <owner>/petstore-conformance@<tag>` checkout holds sources only: the
# first run in a job installs and builds the suite there (npm ci, from the npm cache action.yml restores),
# later runs in the job reuse it. Then it certifies with the inputs, and hands the verdict, the report
# folder and summary.md to the workflow; the step's exit code is the suite's (see the README's exit codes).
#
# Inputs arrive as INPUT_* variables (and the key as PETSTORE_API_KEY), never spliced into this text: a
# URL or a path with quotes or $( ) in it stays data.
set -uo pipefail

action_path=${GITHUB_ACTION_PATH:?GITHUB_ACTION_PATH is not set: this script is the step of action.yml}
outputs=${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set: this script is the step of action.yml}
step_summary=${GITHUB_STEP_SUMMARY:?GITHUB_STEP_SUMMARY is not set: this script is the step of action.yml}
report_dir=${INPUT_REPORT_DIR:-conformance-reports}
args=(--base-url "${INPUT_BASE_URL:-}" --report-dir "$report_dir")

# The outputs, and the step summary: summary.md when this run wrote one, else a line that says why not.
hand_over() {
  local verdict=$1 code=$2 why=$3
  printf 'verdict=%s\nreport-dir=%s\nexit-code=%s\n' "$verdict" "$report_dir" "$code" >> "$outputs"
  if [ -n "$why" ]; then
    printf '### Pet Store conformance\n\n%s\n' "$why" >> "$step_summary"
  else
    cat "$report_dir/summary.md" >> "$step_summary"
  fi
}

# The step's own failure before any run: a line in the log and on the summary page, the CLI's code for it.
stop() {
  echo "::error title=petstore-conformance::$2"
  hand_over none "$1" "Not run: $2."
  exit "$1"
}

# A boolean input: "true" adds the flag, "false" or nothing leaves it out; a typo must not quietly do neither.
flag() {
  case "$2" in
    true) args+=("$3") ;;
    false | '') ;;
    *) stop 2 "the input $1 takes true or false, not \"$2\"" ;;
  esac
}

# An input with a value: passed only when given, so the suite's own default holds otherwise.
option() {
  if [ -n "$2" ]; then args+=("$1" "$2"); fi
}

option --baseline "${INPUT_BASELINE:-}"
option --ca-file "${INPUT_CA_FILE:-}"
option --max-duration "${INPUT_MAX_DURATION:-}"
option --only "${INPUT_ONLY:-}"
option --skip "${INPUT_SKIP:-}"
flag strict "${INPUT_STRICT:-}" --strict
flag read-only "${INPUT_READ_ONLY:-}" --read-only
flag require-complete "${INPUT_REQUIRE_COMPLETE:-}" --require-complete
# Further options, split at spaces and newlines (no quoting, no globbing): `--concurrency 2 --seed 7`.
if [ -n "${INPUT_ARGS:-}" ]; then
  read -r -d '' -a extra <<< "$INPUT_ARGS" || true
  args+=("${extra[@]}")
fi

cli="$action_path/dist/cli/main.js"
if [ ! -f "$cli" ] || [ ! -d "$action_path/node_modules" ]; then
  echo "::group::Installing petstore-conformance in $action_path (npm ci, then the build)"
  # --include=dev: the build needs TypeScript even where the job sets NODE_ENV=production.
  (cd "$action_path" && npm ci --prefer-offline --include=dev --no-audit --no-fund) >&2 \
    || stop 4 "npm ci failed in the action's checkout ($action_path); the log above says why"
  # The package runs no script on install: the build is a step of its own.
  if [ ! -f "$cli" ]; then
    (cd "$action_path" && npm run build) >&2 || stop 4 "the build failed in the action's checkout ($action_path)"
  fi
  echo "::endgroup::"
fi

# A report.json older than this run (a folder reused by an earlier step) must not lend this run its verdict.
since=$(node -p 'Date.now()')
code=0
node "$cli" "${args[@]}" || code=$?

verdict=$(node -e '
  const [file, since] = process.argv.slice(1);
  let verdict = "none";
  try {
    const report = JSON.parse(require("node:fs").readFileSync(file, "utf8"));
    if (Date.parse(report.startedAt) >= Number(since)) verdict = report.verdict;
  } catch {}
  process.stdout.write(verdict);
' "$report_dir/report.json" "$since")
if [ "$verdict" = none ]; then
  hand_over none "$code" "The run ended with exit $code before writing a report: the step's log says why (see the exit codes in the README of petstore-conformance)."
elif [ ! -f "$report_dir/summary.md" ]; then
  hand_over "$verdict" "$code" "Exit $code. No summary.md was written (--reporter); the reports are in $report_dir."
else
  hand_over "$verdict" "$code" ''
fi
exit "$code"
