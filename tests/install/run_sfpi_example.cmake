# Installs the build into a scratch prefix, then configures, builds and runs examples/sfpi against
# it: find_package(vlak), vlak_add_sfpi_kernels (every target vlak was built with), the installed
# <vlak/sfpi/...> headers (also alone, with one target: sfpi_one_target), and the example's own
# checks (float64 error bounds, the same bits on every target this CPU runs). Any failing step
# fails the test.
include(${CMAKE_CURRENT_LIST_DIR}/scratch_install.cmake)

# The compiler launcher (ccache, when vlak's build uses it) makes a rerun take seconds: the scratch
# paths are the same every time.
set(launcher "")
if(LAUNCHER)
  set(launcher -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
endif()
run(${CMAKE_COMMAND} -S ${EXAMPLE_DIR} -B ${WORK_DIR}/build -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_CXX_COMPILER=${CXX} ${launcher})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build --parallel 2)
run(${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${prefix}/lib ${WORK_DIR}/build/sfpi_example --tiles 16)
run(${WORK_DIR}/build/sfpi_one_target)
