#!/usr/bin/env bash
# The 0.1.0 surface renames (issue 49, "The surface, once"), as a script so
# they can be re-run after other branches merge: it rewrites every call site
# it finds, old and new. Idempotent: a second run changes nothing.
#
#   tools/surface-renames.sh            # from the workspace root
#
# Scope: *.rs, *.md and insta *.snap files (the macro-expansion snapshots
# name the spec setters), excluding target/ and CHANGELOG.md (whose
# "Renamed and moved" list names the old spellings on purpose).
set -euo pipefail
cd "$(dirname "$0")/.."

files() {
  find . \( -path ./target -o -path '*/target' -o -path ./.git \) -prune -o \
    -type f \( -name '*.rs' -o -name '*.md' -o -name '*.snap' \) \
    ! -name CHANGELOG.md ! -path ./tools/surface-renames.sh -print0
}

# 1. One setter style: by-value builder setters take the plain name, as the
#    DESIGN's `PromptBuilder::mode/separator/budget` do. Kept with `with_`:
#    `Pipeline::with_layer` (collides with the getter `Pipeline::layer`),
#    `Context::with` (a fixed public name).
SETTERS=(
  # prompt-core: spec builders (also what the macros' expansion calls)
  required_crates include paths modes separator scope_order type_name
  pipelines yields channel scope after before silent notes
  # prompt-providers: observe
  output response_id diagnosis log
  # prompt-layers: source limits and configs
  max_skills max_bytes max_name_chars max_description_chars max_total_read
  max_total_frontmatter max_load_time cap_per_file nested nested_budget
  nested_time_budget fuel max_output max_include_depth max_variable limits
  lenient_undefined max_entries read_cap max_depth max_nodes max_text
  # prompt-layers: RuntimeFacts
  date time_zone cwd os shell model git_branch
)
expr=''
for s in "${SETTERS[@]}"; do expr+="s/\\bwith_${s}\\b/${s}/g;"; done
# `CacheUsage::with_write_ttl` adds to `written_ttl` (see 3.)
expr+='s/\bwith_write_ttl\b/written_ttl/g;s/\.write_ttl\(/.written_ttl(/g;'
# `EntryLimits::with_budget` is a setter; `Memoized::with_budget(counter, n)`
# is a constructor (as `Vec::with_capacity`) and keeps its name.
expr+='s/\.with_budget\b/.budget/g;s/fn with_budget\(mut self/fn budget(mut self/g;'

# 2. One naming scheme for prompt-clients' usage readers: `<what>_usage`
#    after what the client's type is (`cache_usage` in rig and genai read
#    their one `Usage`); async-openai has two, named by API.
expr+='s/\bchat_usage\b/chat_cache_usage/g;s/\bresponse_usage\b/response_cache_usage/g;'
# ...without doubling a name the rule already made.
expr+='s/\bchat_cache_cache_usage\b/chat_cache_usage/g;s/\bresponse_cache_cache_usage\b/response_cache_usage/g;'

files | xargs -0 perl -0pi -e "$expr"

# 3. One word per concept for what a cache did: `CacheUsage::{read, written,
#    written_ttl}` beside `CacheVerdict::{read, written}` (the ledger's log
#    keeps `cache_read`/`cache_write`/`cache_write_ttl` through serde renames).
#    Other types keep their `cache_read` (`Pricing::cache_read()` is a price;
#    the simulation's `TurnCost` a billing line), so a name-based rewrite
#    would be wrong: let the compiler find `CacheUsage`'s field sites and
#    rewrite exactly those (a shorthand `cache_read,` becomes
#    `read: cache_read,`). Doc comments and Markdown: `usage.cache_read`.
expr3='s/(?<!gen_ai\.)\busage\.cache_write_ttl\b(?!\.)/usage.written_ttl/g;s/(?<!gen_ai\.)\busage\.cache_read\b(?!\.)/usage.read/g;s/(?<!gen_ai\.)\busage\.cache_write\b(?!\.)/usage.written/g;'
files | xargs -0 perl -0pi -e "$expr3"
if [[ "${SKIP_CARGO:-}" != 1 ]]; then
  for _ in 1 2 3 4 5 6 7 8; do
    sites=$(CARGO_INCREMENTAL=0 cargo check --workspace --all-targets --all-features \
        --message-format=short 2>&1 |
      perl -ne 'print "$1 $2 $3\n" if /^(\S+\.rs):(\d+):(\d+): error\[E0(?:609|560|026)\]: .*`(?:cache_read|cache_write|cache_write_ttl)`/' |
      sort -u) || true
    [[ -z "$sites" ]] && break
    # Right to left within a line, so earlier columns stay put.
    while read -r file line col; do
      LINE="$line" COL="$col" perl -pi -e '
        if ($. == $ENV{LINE}) {
          my $i = $ENV{COL} - 1;
          my %to = (cache_write_ttl => "written_ttl", cache_read => "read", cache_write => "written");
          for my $old (qw(cache_write_ttl cache_read cache_write)) {
            next unless substr($_, $i, length $old) eq $old
              && substr($_, $i + length $old, 1) !~ /\w/;
            my $rest = substr($_, $i + length $old);
            my $short = $rest =~ /^\s*[,}]|^\s*$/ && substr($_, 0, $i) !~ /\.\s*$/;
            substr($_, $i, length $old) = $short ? "$to{$old}: $old" : $to{$old};
            last;
          }
        }' "$file"
    done < <(sort -k1,1 -k2,2n -k3,3nr <<<"$sites")
  done
  # A local that was already called `written` needs no `written: written`.
  files | xargs -0 perl -pi -e 's/\b(read|written|written_ttl): \1\b(?=\s*[,}]|\s*$)/$1/g'
fi

# A shorter name can fit one line where the longer did not: reformat, and
# re-record the macro-expansion snapshots (review their diff: only names).
cargo fmt --all
echo "now: INSTA_UPDATE=always cargo test -p prompt-macros, then review git diff" >&2
