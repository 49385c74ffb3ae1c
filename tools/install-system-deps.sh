#!/usr/bin/env bash
# Install the system components some tests drive for real:
#   R (r-base-core, r-cran-jsonlite, r-cran-digest)  - the R examples
#   r-cran-v8, r-cran-testthat, r-cran-roxygen2       - the R package (r/) and its checks
#   Chromium                                          - the leaderboard page test
#   Node.js + ajv (npm ci in tools/ajv, locked)       - the cross-implementation schema test
# Run by `make system-deps`, which `make test` calls. Installs only what is missing, and only
# where the machine allows it (root and apt-get); otherwise it says what to install, and the
# tests that need a component skip (under CI=true they fail instead). It never replaces a
# program the machine already has unless ICGBENCH_REPLACE_SYSTEM_PACKAGES=1 allows it (CI
# sets it): then it says exactly what it replaces.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v Rscript >/dev/null 2>&1 || need+=(r-base-core)
r_has() { Rscript -e "quit(status = !requireNamespace('$1', quietly = TRUE))" >/dev/null 2>&1; }
if command -v Rscript >/dev/null 2>&1; then
  r_has jsonlite || need+=(r-cran-jsonlite)
  r_has digest || need+=(r-cran-digest)
  r_has V8 || need+=(r-cran-v8)
  r_has testthat || need+=(r-cran-testthat)
  r_has roxygen2 || need+=(r-cran-roxygen2)
else
  need+=(r-cran-jsonlite r-cran-digest r-cran-v8 r-cran-testthat r-cran-roxygen2)
fi
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v node >/dev/null 2>&1 || need+=(nodejs)
command -v npm >/dev/null 2>&1 || need+=(npm)

if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "system-deps: cannot install ${need[*]} here (needs root and apt-get);" \
         "install them yourself; the tests that need them will skip" >&2
  else
    echo "system-deps: installing ${need[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    # r-cran-v8 links Debian's libnode, which only installs beside Debian's own nodejs: a
    # nodejs from elsewhere (NodeSource) would have to be replaced by Debian's, with npm.
    downgrade=()
    if [[ " ${need[*]} " == *" r-cran-v8 "* ]] && command -v node >/dev/null 2>&1 \
        && ! dpkg-query -W -f='${Version}' nodejs 2>/dev/null | grep -q dfsg; then
      debian_node=$(apt-cache madison nodejs | awk '$NF ~ /Packages/ && $3 ~ /dfsg/ {print $3; exit}')
      installed=$(dpkg-query -W -f='${Version}' nodejs 2>/dev/null || node --version)
      if [ -z "$debian_node" ]; then
        :
      elif [ "${ICGBENCH_REPLACE_SYSTEM_PACKAGES:-0}" = 1 ]; then
        echo "system-deps: replacing nodejs $installed with Debian's $debian_node (and its" \
             "npm), which r-cran-v8 needs (ICGBENCH_REPLACE_SYSTEM_PACKAGES=1)" >&2
        need+=("nodejs=$debian_node" npm)
        downgrade=(--allow-downgrades)
      else
        echo "system-deps: not installing r-cran-v8: it needs Debian's nodejs $debian_node," \
             "which would replace this machine's nodejs $installed; run" \
             "ICGBENCH_REPLACE_SYSTEM_PACKAGES=1 make test to allow that, or install" \
             "CRAN's V8 with its own libv8 (docs/r.md: DOWNLOAD_STATIC_LIBV8=1) (the R" \
             "package works without it but does not validate; the R tests that need V8" \
             "skip, under CI=true they fail)" >&2
        need=("${need[@]/r-cran-v8}")
      fi
    fi
    need=(${need[@]})  # drop the emptied entries
    [ ${#need[@]} -eq 0 ] || apt-get install -y -qq --no-install-recommends ${downgrade[@]+"${downgrade[@]}"} "${need[@]}" >/dev/null
  fi
fi

if command -v npm >/dev/null 2>&1 && [ ! -f tools/ajv/node_modules/ajv/package.json ]; then
  echo "system-deps: npm ci in tools/ajv" >&2
  (cd tools/ajv && npm ci --no-audit --no-fund --loglevel=error >/dev/null) \
    || echo "system-deps: npm ci failed; the ajv test will skip (or fail under CI)" >&2
fi
