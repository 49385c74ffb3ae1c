#!/usr/bin/env bash
# Install the system components some tests drive for real:
#   R (r-base-core, r-cran-jsonlite, r-cran-digest)  - the R examples
#   r-cran-v8, r-cran-testthat, r-cran-roxygen2       - the R package (r/) and its checks
#   Chromium                                          - the leaderboard page test
#   Node.js + ajv (npm ci in tools/ajv, locked)       - the cross-implementation schema test
# Run by `make system-deps`, which `make test` calls. Installs only what is missing, and only
# where the machine allows it (root and apt-get); otherwise it says what to install, and the
# tests that need a component skip (under CI=true they fail instead).
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
    # nodejs from elsewhere (NodeSource) is replaced by Debian's, with Debian's npm.
    if [[ " ${need[*]} " == *" r-cran-v8 "* ]] && command -v node >/dev/null 2>&1 \
        && ! dpkg-query -W -f='${Version}' nodejs 2>/dev/null | grep -q dfsg; then
      debian_node=$(apt-cache madison nodejs | awk '$NF ~ /Packages/ && $3 ~ /dfsg/ {print $3; exit}')
      [ -n "$debian_node" ] && need+=("nodejs=$debian_node" npm)
    fi
    apt-get install -y -qq --no-install-recommends --allow-downgrades "${need[@]}" >/dev/null
  fi
fi

if command -v npm >/dev/null 2>&1 && [ ! -f tools/ajv/node_modules/ajv/package.json ]; then
  echo "system-deps: npm ci in tools/ajv" >&2
  (cd tools/ajv && npm ci --no-audit --no-fund --loglevel=error >/dev/null) \
    || echo "system-deps: npm ci failed; the ajv test will skip (or fail under CI)" >&2
fi
