#!/usr/bin/env bash
# Compile-time cost of `#[prompt_layer]` (BENCHMARKS.md): generates two crates
# outside the workspace, one of 100 annotated layers and one of the same 100
# layers written by hand against `prompt_core::__private_v1` (spec, renderer,
# band check, registration: what the attribute generates), then times a clean
# build of each crate with its dependencies already built, and of the macro crate.
#
#   tests/compile-bench/gen.sh [OUT]   (default: target/compile-bench)
#
# Not part of the workspace or of CI.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/target/compile-bench}
n=100
mkdir -p "$out"

manifest() { # name
  cat <<TOML
[package]
name = "$1"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
prompt-core = { path = "$root/prompt-core" }

# Its own workspace: not a member of the project's.
[workspace]
TOML
}

text() { # i
  printf 'Layer %d: follow rule %d, keep answers short, cite the file and line you read.' "$1" "$1"
}

gen_annotated() {
  local dir=$out/annotated
  mkdir -p "$dir/src"
  manifest annotated >"$dir/Cargo.toml"
  {
    echo '//! 100 layers declared with the attribute.'
    echo 'use prompt_core::prompt_layer;'
    for i in $(seq 0 $((n - 1))); do
      echo
      echo "#[prompt_layer(priority = $((100 + i)), stability = Stable, paths = [Basic, Cached], text = \"$(text "$i")\")]"
      echo "pub struct Layer$i;"
    done
  } >"$dir/src/lib.rs"
}

gen_hand() {
  local dir=$out/hand
  mkdir -p "$dir/src"
  manifest hand >"$dir/Cargo.toml"
  {
    echo '//! The same 100 layers written by hand, as the attribute expands them.'
    echo 'use prompt_core::__private_v1 as p;'
    for i in $(seq 0 $((n - 1))); do
      cat <<RS

pub struct Layer$i;

impl p::PromptLayer for Layer$i {
    const SPEC: p::LayerSpec = p::LayerSpec::new("layer$i", $((100 + i)), p::Stability::Stable)
        .with_paths(&[p::AssemblyPath::Basic, p::AssemblyPath::Cached])
        .with_type_name("Layer$i")
        .defined_at(env!("CARGO_PKG_NAME"), file!(), line!());

    fn __renderer() -> p::BoxedRender {
        p::StaticText::new("$(text "$i")").boxed()
    }
}

const _: () = {
    let problem = p::band_problem(&<Layer$i as p::PromptLayer>::SPEC);
    if problem.is_some() {
        panic!("{}", problem.as_str());
    }
};

p::inventory::submit! {
    p::Registration::new(&<Layer$i as p::PromptLayer>::SPEC, <Layer$i as p::PromptLayer>::__renderer)
}
RS
    done
  } >"$dir/src/lib.rs"
}

# Seconds for a clean build of `crate` alone, its dependencies already built.
time_crate() { # dir crate
  (cd "$1" && cargo build -q --target-dir "$out/target" >/dev/null 2>&1)
  (cd "$1" && cargo clean -q -p "$2" --target-dir "$out/target")
  local start end
  start=$(date +%s.%N)
  (cd "$1" && cargo build -q --target-dir "$out/target")
  end=$(date +%s.%N)
  echo "$end - $start" | bc
}

gen_annotated
gen_hand
runs=${RUNS:-3}
for crate in hand annotated; do
  for _ in $(seq "$runs"); do
    echo "$crate $(time_crate "$out/$crate" "$crate")"
  done
done
# The macro crate itself: a clean build of prompt-macros alone (syn etc. built).
(cd "$root" && cargo build -q -p prompt-macros --target-dir "$out/target")
for _ in $(seq "$runs"); do
  (cd "$root" && cargo clean -q -p prompt-macros --target-dir "$out/target")
  start=$(date +%s.%N)
  (cd "$root" && cargo build -q -p prompt-macros --target-dir "$out/target")
  end=$(date +%s.%N)
  echo "prompt-macros $(echo "$end - $start" | bc)"
done
