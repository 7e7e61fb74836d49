# The lab (`vlak bench`, `vlak report`): unit tests and an end-to-end run of a tiny suite, on the
# host and, in the RISC-V builds, under qemu with the instruction-count plugin. Included by
# tests/CMakeLists.txt.
add_executable(vlak_lab_test ${CMAKE_CURRENT_SOURCE_DIR}/lab/lab_unit_test.cc ${CMAKE_CURRENT_SOURCE_DIR}/lab/lab_e2e_test.cc)
target_include_directories(vlak_lab_test PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/lab)
target_link_libraries(vlak_lab_test PRIVATE vlak_lab GTest::gtest_main)
target_compile_definitions(vlak_lab_test PRIVATE VLAK_LAB_TEST_DIR="${CMAKE_CURRENT_SOURCE_DIR}/lab")

set(_lab_e2e ${CMAKE_COMMAND} -DVLAK=$<TARGET_FILE:vlak_cli> -DCHECK=$<TARGET_FILE:vlak_lab_test>
             -DSUITE=${CMAKE_CURRENT_SOURCE_DIR}/lab/tiny_suite.txt)
if(CMAKE_CROSSCOMPILING)
  # At the first VLEN only (lab.e2e.vlen<v>; without V, a CPU without V).
  list(GET VLAK_TEST_VLENS 0 _lab_vlen)
  vlak_add_test(NAME lab.unit COMMAND vlak_lab_test --gtest_filter=-LabE2E.* ONCE)
  if(DEFINED VLAK_ICOUNT_PLUGIN)
    vlak_qemu_command(_lab_run ${_lab_vlen})
    list(JOIN _lab_run "|" _lab_run)  # e2e.cmake's RUN: the command's words joined by "|"
    vlak_add_test(NAME lab.e2e RUNS_QEMU VLENS ${_lab_vlen}
                  COMMAND ${_lab_e2e} -DWORK=${CMAKE_CURRENT_BINARY_DIR}/lab_e2e "-DRUN=${_lab_run}"
                          -DPLUGIN=${VLAK_ICOUNT_PLUGIN} -P ${CMAKE_CURRENT_SOURCE_DIR}/lab/e2e.cmake)
  endif()
else()
  # Each threaded baseline at 1 and 2 threads, judged by the CPU time it burns (about 10 s). Run
  # alone: other tests on the same cores would take the second thread's core away.
  add_executable(vlak_lab_threads_test ${CMAKE_CURRENT_SOURCE_DIR}/lab/lab_threads_test.cc)
  target_link_libraries(vlak_lab_threads_test PRIVATE vlak_lab GTest::gtest_main)
  add_test(NAME lab.threads COMMAND vlak_lab_threads_test)
  set_tests_properties(lab.threads PROPERTIES RUN_SERIAL TRUE TIMEOUT 120)
  add_test(NAME lab.unit COMMAND vlak_lab_test --gtest_filter=-LabE2E.*)
  add_test(NAME lab.e2e COMMAND ${_lab_e2e} -DWORK=${CMAKE_CURRENT_BINARY_DIR}/lab_e2e -P ${CMAKE_CURRENT_SOURCE_DIR}/lab/e2e.cmake)
endif()
