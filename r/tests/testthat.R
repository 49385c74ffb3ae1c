library(testthat)
library(icgbench)

test_check("icgbench")
