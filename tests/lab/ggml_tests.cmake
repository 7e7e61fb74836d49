# The ggml peer's interface (src/lab/ggml_baseline.h): skipped, not failed, where ggml is not built
# (make peers). Under qemu at every VLEN in an RVV build with the rv64gcv peer. Included by
# tests/CMakeLists.txt.
if(NOT TARGET vlak_ggml_baseline)
  return()  # the lab is not built (VLAK_BUILD_TOOLS=OFF)
endif()
add_executable(vlak_ggml_baseline_test ${CMAKE_CURRENT_SOURCE_DIR}/lab/ggml_baseline_test.cc)
target_link_libraries(vlak_ggml_baseline_test PRIVATE vlak_ggml_baseline vlak GTest::gtest_main)
vlak_add_test(NAME lab.ggml COMMAND vlak_ggml_baseline_test
              PROPERTIES LABELS peer SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]")
