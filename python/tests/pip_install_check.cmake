# python.pip_install: `pip install .` from the repository root (pyproject.toml, scikit-build-core)
# into a scratch directory, then vlak imported from outside the tree. Run by CTest with -DSOURCE_DIR
# -DBUILD_DIR -DPIP_BUILD_DIR -DWORK -DPYTHON.
# The build backend comes from PyPI into a virtual environment kept in the build tree (made once;
# it sees the system's NumPy), and pip runs without build isolation there, so no other download is
# needed. scikit-build-core's build directory is kept too (PIP_BUILD_DIR), so a second run rebuilds
# only what changed; at the depth of the presets' build/<preset>, so that ccache (whose base
# directory makes paths relative to the build directory) finds the host preset's objects.
set(venv ${BUILD_DIR}/pip_venv)
if(NOT EXISTS ${venv}/bin/python)
  execute_process(COMMAND ${PYTHON} -m venv --system-site-packages ${venv} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${PYTHON} -m venv failed (${rc}): apt install python3-venv")
  endif()
endif()
execute_process(COMMAND ${venv}/bin/python -c "import scikit_build_core" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
if(NOT rc EQUAL 0)
  execute_process(COMMAND ${venv}/bin/python -m pip install -q --disable-pip-version-check "scikit-build-core>=0.8"
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message("vlak pip test skipped: scikit-build-core could not be installed from PyPI (offline?)")
    return()
  endif()
endif()
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${venv}/bin/python -m pip install -q --disable-pip-version-check --no-build-isolation --no-deps
                        --target ${WORK}/site --config-settings=build-dir=${PIP_BUILD_DIR} ${SOURCE_DIR}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pip install . failed (${rc})")
endif()
file(MAKE_DIRECTORY ${WORK}/elsewhere)
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${WORK}/site ${venv}/bin/python -c
          "import vlak, numpy as np; assert vlak.__file__.startswith('${WORK}/site'), vlak.__file__; y = vlak.softmax(np.zeros((2, 4), np.float32)); assert (y == 0.25).all(); i = vlak.info(); assert i['target'] in i['targets_supported'] and i['num_threads'] >= 1, i; print('pip-installed vlak', vlak.__version__, i['target'], i['num_threads'], 'threads')"
  WORKING_DIRECTORY ${WORK}/elsewhere RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the pip-installed module does not import (${rc})")
endif()
