# End-to-end test of the lab: `vlak bench` on tiny_suite.txt, `vlak report`, then the LabE2E
# check reads what they wrote; plus the one-line errors for bad input.
#   cmake -DVLAK=... -DCHECK=... -DSUITE=... -DWORK=... [-DRUN="qemu-riscv64|-L|...|-cpu|..."]
#         [-DPLUGIN=libqemu-icount.so] -P e2e.cmake
# RUN ('|'-separated) runs the riscv64 programs; with PLUGIN, `vlak bench` runs under the
# instruction-count plugin as scripts/rvv-run does it.
string(REPLACE "|" ";" RUN "${RUN}")
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(BENCH ${RUN})
if(PLUGIN)
  set(BENCH ${CMAKE_COMMAND} -E env VLAK_ICOUNT_LIVE=${WORK}/live ${RUN} -plugin ${PLUGIN},live=${WORK}/live)
endif()

function(expect_usage_error expect)
  execute_process(COMMAND ${RUN} ${VLAK} ${ARGN} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  string(STRIP "${err}" err)
  if(NOT rc EQUAL 2 OR NOT err MATCHES "${expect}" OR err MATCHES "\n")
    message(FATAL_ERROR "vlak ${ARGN}: want exit 2 and one line matching '${expect}', got ${rc}: '${err}'")
  endif()
endfunction()
expect_usage_error("unknown operator 'nope' \\(valid: ([a-z0-9_-]+ )+[a-z0-9_-]+\\)" bench --op nope)
expect_usage_error("unknown implementation 'nope' for softmax \\(valid: vlak .*xnnpack onednn" bench --op softmax --impls nope --shapes 1x8)
expect_usage_error("unknown option '--frob' \\(valid: --suite" bench --frob)
expect_usage_error("unknown suite 'nope' \\(valid: full quick rvv" bench --suite nope)
expect_usage_error("unknown --baseline 'nope' \\(valid:" bench --op exp --shapes 8 --baseline nope)
expect_usage_error("unknown option '--frob'" report --frob)

execute_process(COMMAND ${BENCH} ${VLAK} bench --suite ${SUITE} --json ${WORK}/r.json --csv ${WORK}/r.csv --quiet --strict
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "vlak bench failed (${rc}): ${err}")
endif()
if(NOT out MATCHES "softmax 1x256, 1 thread" OR NOT out MATCHES "exp 1000, 1 thread")
  message(FATAL_ERROR "vlak bench printed no table")
endif()
# Every case of the suite printed its table: "<op> <first shape>, 1 thread".
file(STRINGS ${SUITE} _cases REGEX "^case ")
foreach(line IN LISTS _cases)
  string(REGEX REPLACE "^case ([^ ]+) shapes=([^ ,]+).*" "\\1 \\2" c "${line}")
  if(NOT out MATCHES "${c}, 1 thread")
    message(FATAL_ERROR "vlak bench printed no '${c}' case")
  endif()
endforeach()
if(NOT out MATCHES "\nsummary: fastest peer's" OR NOT out MATCHES "\n  worst case: ")
  message(FATAL_ERROR "vlak bench printed no summary")
endif()
if(NOT PLUGIN AND (NOT out MATCHES "%bound" OR NOT out MATCHES "bound: copy" OR NOT out MATCHES "bound: FMA peak"))
  message(FATAL_ERROR "vlak bench printed no roofline")
endif()

execute_process(COMMAND ${RUN} ${VLAK} report ${WORK}/r.json -o ${WORK}/report RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "report: ${WORK}/report/report.md")
  message(FATAL_ERROR "vlak report failed (${rc}): ${out} ${err}")
endif()

execute_process(COMMAND ${CMAKE_COMMAND} -E env LAB_E2E_DIR=${WORK} ${RUN} ${CHECK} --gtest_filter=LabE2E.*
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0 OR out MATCHES "SKIPPED")
  message(FATAL_ERROR "the results/report check failed")
endif()
