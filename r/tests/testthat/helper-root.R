# The repository root: the release, the fixtures and the published schemas live there.
repo_root <- function() {
  root <- Sys.getenv("ICGBENCH_ROOT")
  if (!nzchar(root)) {
    skip("ICGBENCH_ROOT is not set: set it to the repository root to run this test")
  }
  root
}

small_release <- function() icg_release(repo_root(), "small")

truths <- new.env()
cached_truth <- function(variant) {
  if (is.null(truths[[variant]])) truths[[variant]] <- icg_truth(small_release(), variant)
  truths[[variant]]
}

model <- function() list(name = "r-test", version = "0.1.0", language = "R")
