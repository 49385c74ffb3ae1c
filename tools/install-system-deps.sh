#!/usr/bin/env bash
# Install the system components some tests drive for real: R (base R, jsonlite, digest).
# Run by `make system-deps` (which `make test` calls). Installs only what is missing, and
# only where this machine allows it (root and apt-get); otherwise it says what to install
# and the tests that need the component skip (or fail under CI=true).
set -euo pipefail

need=()
command -v Rscript >/dev/null 2>&1 || need+=(r-base-core)
if command -v Rscript >/dev/null 2>&1; then
  Rscript -e 'quit(status = !requireNamespace("jsonlite", quietly = TRUE))' >/dev/null 2>&1 \
    || need+=(r-cran-jsonlite)
  Rscript -e 'quit(status = !requireNamespace("digest", quietly = TRUE))' >/dev/null 2>&1 \
    || need+=(r-cran-digest)
else
  need+=(r-cran-jsonlite r-cran-digest)
fi

if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "system-deps: cannot install ${need[*]} here (needs root and apt-get);" \
       "install them yourself; the tests that need them will skip" >&2
  exit 0
fi
echo "system-deps: installing ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
