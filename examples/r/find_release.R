# The release an example reads, found as every example finds it (sourced by the examples
# beside this file, which set `script`, their own path, and `script_name` first):
# RELEASE_ROOT when given (an empty string means: locate it); else the folder
# ICGBENCH_RELEASE names; else the working folder or a parent holding the release; else the
# repository the script sits in. Found nowhere, it says where it looked and exits 2.

fail <- function(message) {
  cat(script_name, ": ", message, "\n", sep = "", file = stderr())
  quit(save = "no", status = 2)
}
if (!requireNamespace("jsonlite", quietly = TRUE)) {
  fail(paste("this example needs the jsonlite R package: apt-get install r-cran-jsonlite",
             "(Debian) or install.packages(\"jsonlite\")"))
}
is_release <- function(folder) {
  path <- file.path(folder, "datapackage.json")
  if (!file.exists(path) || dir.exists(path)) return(FALSE)
  doc <- tryCatch(jsonlite::fromJSON(path, simplifyVector = FALSE), error = function(e) NULL)
  name <- if (is.list(doc)) doc[["name"]] else NULL
  is.character(name) && length(name) == 1 && startsWith(name, "icg-bench")
}
find_release <- function(given) {
  hint <- "the folder holding the release's datapackage.json (the repository's root)"
  if (nzchar(given)) {
    if (is_release(given)) return(given)
    fail(sprintf("%s holds no ICg-Bench datapackage.json: pass as RELEASE_ROOT %s", given,
                 hint))
  }
  named <- Sys.getenv("ICGBENCH_RELEASE")
  if (nzchar(named)) {
    if (is_release(named)) return(named)
    fail(sprintf("ICGBENCH_RELEASE=%s holds no ICg-Bench datapackage.json: set it to %s, %s",
                 named, hint, "or unset it"))
  }
  folder <- normalizePath(getwd())
  repeat {
    if (is_release(folder)) return(folder)
    if (dirname(folder) == folder) break
    folder <- dirname(folder)
  }
  beside <- if (length(script) == 1) {
    normalizePath(file.path(dirname(script), "..", ".."), mustWork = FALSE)
  }
  if (!is.null(beside) && is_release(beside)) return(beside)
  fail(sprintf(paste("no ICg-Bench release found in %s or its parents%s: pass the release",
                     "root as the first argument, or set ICGBENCH_RELEASE to %s"),
               normalizePath(getwd()),
               if (is.null(beside)) "" else
                 sprintf(", nor in %s (the repository this script sits in)", beside),
               hint))
}
