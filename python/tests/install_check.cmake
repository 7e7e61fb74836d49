# python.install: `cmake --install` into a scratch prefix puts an importable vlak package at
# <prefix>/<VLAK_PYTHON_INSTALL_DIR> (run by CTest with -DBUILD_DIR -DWORK -DSITE -DPYTHON).
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK} RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc})")
endif()
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${WORK}/${SITE} ${PYTHON} -c
          "import vlak, numpy as np; assert vlak.__file__.startswith('${WORK}'), vlak.__file__; y = vlak.softmax(np.zeros((2, 4), np.float32)); assert (y == 0.25).all(); print('installed vlak', vlak.__version__, vlak.get_target())"
  WORKING_DIRECTORY ${WORK} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the installed module does not import (${rc})")
endif()
