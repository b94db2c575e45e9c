#!/usr/bin/env bash
# The tree's C++ and CUDA in the one style of .clang-format:
#   scripts/format.sh           formats every tracked .cc/.h/.cu/.cuh in place
#   scripts/format.sh --check   changes nothing; lists the files that differ
#                               and exits 1 (the ctest `format`)
# The style is what Debian 12's clang-format 14 makes of .clang-format; with
# another major version (whose output differs in small ways) --check exits 77,
# which ctest shows as skipped, rather than failing on the version.
set -euo pipefail
cd "$(dirname "$0")/.."
check=0
[ "${1:-}" = --check ] && check=1
command -v clang-format >/dev/null ||
  { echo "format: needs clang-format (scripts/install-deps.sh test)" >&2; exit $((check ? 77 : 2)); }
major=$(clang-format --version | sed -n 's/.*version \([0-9]*\).*/\1/p')
if [ "$major" != 14 ]; then
  echo "format: the style is clang-format 14's; this is clang-format $major" >&2
  [ $check -eq 1 ] && exit 77
fi
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cc' '*.h' '*.cu' '*.cuh')
else
  mapfile -t files < <(find client server kernels proto tests tools \
                         \( -name '*.cc' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) | sort)
fi
if [ $check -eq 0 ]; then
  clang-format -i --style=file "${files[@]}"
  exit 0
fi
differ=()
for file in "${files[@]}"; do
  clang-format --style=file "$file" | cmp -s - "$file" || differ+=("$file")
done
if [ ${#differ[@]} -gt 0 ]; then
  echo "format: ${#differ[@]} of ${#files[@]} files differ from .clang-format's style:" >&2
  printf '  %s\n' "${differ[@]}" >&2
  echo "format: run scripts/format.sh to format them" >&2
  exit 1
fi
echo "format: ${#files[@]} files follow .clang-format"
