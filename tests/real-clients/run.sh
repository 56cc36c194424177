#!/usr/bin/env bash
# Opt-in check of `prompt exec` against the real Claude Code, Codex and
# Gemini CLIs (about 900 MB from the npm registry, so not part of .ci/run).
#
#   tests/real-clients/run.sh            # every agent, every client
#   CLIENTS=codex CASES=aleph tests/real-clients/run.sh
#
# Installs the pinned clients into $PROMPT_REAL_CLIENTS (default
# ~/.cache/prompt/real-clients), starts capture.py on 127.0.0.1 (the only
# address any client is pointed at; the server stops itself), runs `prompt
# exec` twice per case and client with different dates, and checks with
# check.py that (1) the stable prefix arrives byte-exact as its own system
# block / developer item, (2) byte-identical across the two runs, and (3) the
# dynamic part arrives in the user message, before the prompt, and in no
# system block. Exits 1 on the first failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)
here="$repo/tests/real-clients"

CLAUDE_VERSION=2.1.328
CODEX_VERSION=0.169.0
GEMINI_VERSION=0.61.0
cache="${PROMPT_REAL_CLIENTS:-$HOME/.cache/prompt/real-clients}"
clients="${CLIENTS:-claude codex gemini}"
cases="${CASES:-recursive aleph kitsoki default}"
per_run=120 # seconds: each client run and each capture server

mkdir -p "$cache"
installed() { node -p "require('$cache/node_modules/$1/package.json').version" 2>/dev/null || true; }
if [[ $(installed @anthropic-ai/claude-code) != "$CLAUDE_VERSION" || $(installed @openai/codex) != "$CODEX_VERSION"
      || $(installed @google/gemini-cli) != "$GEMINI_VERSION" ]]; then
  echo "== installing @anthropic-ai/claude-code@$CLAUDE_VERSION @openai/codex@$CODEX_VERSION @google/gemini-cli@$GEMINI_VERSION into $cache"
  npm install --no-audit --no-fund --prefix "$cache" \
    "@anthropic-ai/claude-code@$CLAUDE_VERSION" "@openai/codex@$CODEX_VERSION" \
    "@google/gemini-cli@$GEMINI_VERSION" >"$cache/install.log" 2>&1 \
    || { tail -20 "$cache/install.log"; exit 1; }
fi
claude="$cache/node_modules/.bin/claude"
codex="$cache/node_modules/.bin/codex"
gemini="$cache/node_modules/.bin/gemini"

echo "== building prompt"
cargo build --quiet -p prompt-examples --bin prompt
prompt="$repo/target/debug/prompt"

work=$(mktemp -d "$cache/run.XXXXXX")
server=""
cleanup() {
  if [[ -n $server ]]; then kill "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# The default pipeline's workspace: a small project with rules and a scratchpad.
ws="$work/workspace"
mkdir -p "$ws/.agent/memory"
printf '# Rules\n\nRun `make check` before every commit.\n' >"$ws/AGENTS.md"
printf -- '- Errors use thiserror.\n' >"$ws/.agent/memory/project.md"
printf '{"plan": "1. reproduce the bug\\n2. fix it", "branch": "fix/login"}\n' >"$ws/.agent/scratchpad.json"

# Clients' own state, away from the user's.
export HOME="$work/home" CLAUDE_CONFIG_DIR="$work/home/.claude" CODEX_HOME="$work/home/.codex"
export XDG_CACHE_HOME="$work/cache"
export CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 DISABLE_TELEMETRY=1
mkdir -p "$CLAUDE_CONFIG_DIR" "$CODEX_HOME" "$XDG_CACHE_HOME" "$HOME/.gemini"
# Gemini CLI: the API key as the auth method, no trust prompt for the folder.
printf '{"security": {"auth": {"selectedType": "gemini-api-key"}}}\n' >"$HOME/.gemini/settings.json"

start_server() { # LOG -> sets $port and $server
  rm -f "$work/port"
  python3 "$here/capture.py" "$work/port" "$1" "$per_run" &
  server=$!
  for _ in $(seq 100); do [[ -s $work/port ]] && break; sleep 0.1; done
  [[ -s $work/port ]] || { echo "capture server did not start"; exit 1; }
  port=$(cat "$work/port")
}
stop_server() { kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; server=""; }

render_options() { # CASE DATE
  if [[ $1 == default ]]; then
    echo "--workspace $ws --date $2"
  else
    echo "--agent $1 --date $2"
  fi
}

user_prompt="Reply with one word."
failed=0
for case in $cases; do
  for client in $clients; do
    echo "== $case through $client"
    for date in 2026-11-29 2026-12-24; do
      run="$work/$case-$client-$date"
      mkdir -p "$run"
      # Render from examples/ so the reference agents find their fixtures.
      # shellcheck disable=SC2046
      (cd "$repo/examples" && "$prompt" render $(render_options "$case" "$date") --format json) >"$run/render.json"
      start_server "$run/capture.jsonl"
      base="http://127.0.0.1:$port"
      set +e
      if [[ $client == claude ]]; then
        # shellcheck disable=SC2046
        (cd "$repo/examples" && ANTHROPIC_BASE_URL="$base" ANTHROPIC_API_KEY=sk-ant-capture \
          timeout "$per_run" "$prompt" exec $(render_options "$case" "$date") -- \
          "$claude" -p --model claude-sonnet-4-5 --no-session-persistence "$user_prompt") \
          </dev/null >"$run/out.txt" 2>"$run/err.txt"
      elif [[ $client == gemini ]]; then
        # shellcheck disable=SC2046
        (cd "$repo/examples" && GOOGLE_GEMINI_BASE_URL="$base" GEMINI_API_KEY=capture \
          GEMINI_CLI_TRUST_WORKSPACE=true timeout "$per_run" "$prompt" exec \
          $(render_options "$case" "$date") -- "$gemini" -m gemini-2.5-flash -p "$user_prompt") \
          </dev/null >"$run/out.txt" 2>"$run/err.txt"
      else
        # shellcheck disable=SC2046
        (cd "$repo/examples" && CAPTURE_API_KEY=capture timeout "$per_run" "$prompt" exec \
          $(render_options "$case" "$date") -- "$codex" -c model_provider=capture \
          -c "model_providers.capture={name=\"capture\",base_url=\"$base/v1\",env_key=\"CAPTURE_API_KEY\",wire_api=\"responses\"}" \
          exec --skip-git-repo-check --ephemeral -m gpt-5 "$user_prompt") \
          </dev/null >"$run/out.txt" 2>"$run/err.txt"
      fi
      code=$?
      set -e
      stop_server
      echo " run $date: $client exited $code, $(wc -l <"$run/capture.jsonl" 2>/dev/null || echo 0) request(s) captured"
      if ! python3 "$here/check.py" "$client" "$run/capture.jsonl" "$run/render.json" "$user_prompt" "$run/system.txt"; then
        echo "  stderr of the run:"; tail -5 "$run/err.txt" | sed 's/^/    /'
        failed=1
        continue 2
      fi
    done
    first="$work/$case-$client-2026-11-29"
    second="$work/$case-$client-2026-12-24"
    if cmp -s "$first/system.txt" "$second/system.txt"; then
      echo "  ok   the system block is byte-identical across the two runs"
    else
      echo "  FAIL the system block differs between the two runs"; failed=1
    fi
    if cmp -s <(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["parts"][1]["content"])' "$first/render.json") \
              <(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["parts"][1]["content"])' "$second/render.json"); then
      echo "  note the dynamic part is the same for both dates ($case states no date)"
    else
      echo "  ok   the dynamic parts of the two runs differ (the date)"
    fi
  done
done
# An interactive Claude Code session driven through tmux: two turns, the git
# branch switched between them. The hook must bring each turn its own context
# while the system block stays the same bytes.
interactive_claude() {
  command -v tmux >/dev/null || { echo "  FAIL tmux is needed for the interactive session"; return 1; }
  local proj="$work/session" key=sk-ant-capture-0123456789abcdefghij name="prompt-real-$$"
  mkdir -p "$proj"
  git -C "$proj" init -q -b master
  printf '# Rules\n\nRun `make check` before every commit.\n' >"$proj/AGENTS.md"
  # Onboarding, the API key and the folder's trust accepted ahead, in the
  # scratch home (Claude Code reads .claude.json from CLAUDE_CONFIG_DIR).
  python3 - "$proj" "$key" "$CLAUDE_CONFIG_DIR/.claude.json" "$HOME/.claude.json" <<'PY'
import json, sys
proj, key = sys.argv[1], sys.argv[2]
config = {"hasCompletedOnboarding": True, "theme": "dark", "numStartups": 5,
          "customApiKeyResponses": {"approved": [key[-20:]], "rejected": []},
          "projects": {proj: {"hasTrustDialogAccepted": True,
                              "hasCompletedProjectOnboarding": True}}}
for path in sys.argv[3:]:
    json.dump(config, open(path, "w"))
PY
  local options=(--workspace . --date 2026-11-29)
  start_server "$work/session.jsonl"
  cat >"$work/session.sh" <<SH
#!/bin/sh
cd '$proj' || exit 1
export HOME='$HOME' CLAUDE_CONFIG_DIR='$CLAUDE_CONFIG_DIR' XDG_CACHE_HOME='$XDG_CACHE_HOME'
export ANTHROPIC_BASE_URL='http://127.0.0.1:$port' ANTHROPIC_API_KEY='$key'
export CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 DISABLE_TELEMETRY=1
'$prompt' exec ${options[*]} -- '$claude' --model claude-sonnet-4-5 2>'$work/session.err'
echo "exited \$?" >'$work/session.exit'
SH
  chmod +x "$work/session.sh"
  tmux new-session -d -s "$name" -x 200 -y 50 "$work/session.sh"
  local ready=0
  for _ in $(seq 60); do
    if tmux capture-pane -p -t "$name" 2>/dev/null | grep -q '❯'; then ready=1; break; fi
    sleep 0.5
  done
  [[ $ready == 1 ]] || { echo "  FAIL the session did not show its prompt"; tmux capture-pane -p -t "$name" | sed 's/^/    /' | head -20; tmux kill-session -t "$name"; stop_server; return 1; }
  local turn typed
  for turn in 1 2; do
    if [[ $turn == 2 ]]; then git -C "$proj" checkout -q -b feature-x; fi
    (cd "$proj" && "$prompt" render "${options[@]}" --format json) >"$work/turn$turn.json"
    typed="Turn $turn: reply with one word."
    tmux send-keys -t "$name" -l "$typed"
    sleep 0.5
    tmux send-keys -t "$name" Enter
    for _ in $(seq 120); do
      grep -q "Turn $turn: reply" "$work/session.jsonl" 2>/dev/null && break
      sleep 0.5
    done
    sleep 1
  done
  tmux kill-session -t "$name"
  stop_server
  echo " session: $(wc -l <"$work/session.jsonl") request(s) captured"
  python3 "$here/check_turns.py" claude "$work/session.jsonl" \
    "$work/turn1.json" "Turn 1: reply with one word." "$work/turn2.json" "Turn 2: reply with one word."
}
if [[ " $clients " == *" claude "* && ${INTERACTIVE:-1} == 1 ]]; then
  echo "== an interactive claude session through tmux, two turns, the branch switched between"
  interactive_claude || failed=1
fi
if [[ $failed == 0 ]]; then echo "real clients: all checks passed"; else echo "real clients: FAILED"; exit 1; fi
