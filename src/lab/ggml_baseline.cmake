# ggml (llama.cpp) as a lab peer: the library vlak_ggml_baseline (ggml_baseline.h), linked with the
# static ggml that scripts/peers/llama-cpp builds into build/peers/llama.cpp-<target> (`make
# peers`), or, where that is not built, the same functions as stubs that say so. Included by
# tools/vlak/lab/lab.cmake. VLAK_GGML_DIR points elsewhere (its include/ and lib/).
if(CMAKE_CROSSCOMPILING AND CMAKE_SYSTEM_PROCESSOR MATCHES "riscv64")
  set(_ggml_default ${PROJECT_SOURCE_DIR}/build/peers/llama.cpp-${VLAK_RISCV_MARCH})
elseif(NOT CMAKE_CROSSCOMPILING)
  set(_ggml_default ${PROJECT_SOURCE_DIR}/build/peers/llama.cpp-host)
else()
  set(_ggml_default "")
endif()
set(VLAK_GGML_DIR "${_ggml_default}" CACHE PATH "ggml peer build (include/, lib/, peer.txt): scripts/peers/llama-cpp")

add_library(vlak_ggml_baseline STATIC ${CMAKE_CURRENT_LIST_DIR}/ggml_baseline.cc)
target_include_directories(vlak_ggml_baseline PUBLIC ${PROJECT_SOURCE_DIR}/src)
set(_ggml_libs "")
foreach(_l ggml ggml-cpu ggml-base)
  list(APPEND _ggml_libs ${VLAK_GGML_DIR}/lib/lib${_l}.a)
endforeach()
set(VLAK_LAB_HAVE_GGML FALSE)
if(VLAK_GGML_DIR AND EXISTS ${VLAK_GGML_DIR}/peer.txt AND EXISTS ${VLAK_GGML_DIR}/include/ggml-cpu.h)
  set(VLAK_LAB_HAVE_GGML TRUE)
  foreach(_f IN LISTS _ggml_libs)
    if(NOT EXISTS ${_f})
      set(VLAK_LAB_HAVE_GGML FALSE)
    endif()
  endforeach()
endif()
if(VLAK_LAB_HAVE_GGML)
  # A rebuilt peer rewrites peer.txt: configure again to pick up its description.
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${VLAK_GGML_DIR}/peer.txt)
  file(STRINGS ${VLAK_GGML_DIR}/peer.txt _ggml_desc)
  list(JOIN _ggml_desc " | " _ggml_desc)
  string(REPLACE "\"" "'" _ggml_desc "${_ggml_desc}")
  target_compile_definitions(vlak_ggml_baseline PRIVATE VLAK_LAB_HAVE_GGML=1 "VLAK_LAB_GGML_VERSION=\"${_ggml_desc}\"")
  target_include_directories(vlak_ggml_baseline SYSTEM PRIVATE ${VLAK_GGML_DIR}/include)
  find_package(Threads REQUIRED)
  # ggml-cpu and ggml-base refer to each other: the group keeps the single-pass linker happy.
  target_link_libraries(vlak_ggml_baseline PUBLIC "-Wl,--start-group" ${_ggml_libs} "-Wl,--end-group" Threads::Threads m)
  message(STATUS "vlak lab: ggml from ${VLAK_GGML_DIR}")
else()
  message(STATUS "vlak lab: no ggml peer in '${VLAK_GGML_DIR}': the ggml rows show as not built (make peers)")
endif()

# ggml-peer (tools/ggml-peer): ggml's products timed, or counted under qemu; only with ggml.
if(VLAK_LAB_HAVE_GGML)
  add_executable(ggml_peer ${PROJECT_SOURCE_DIR}/tools/ggml-peer/ggml_peer.cc)
  target_include_directories(ggml_peer PRIVATE ${PROJECT_SOURCE_DIR}/tools/qemu-icount)
  target_link_libraries(ggml_peer PRIVATE vlak_ggml_baseline)
  set_target_properties(ggml_peer PROPERTIES OUTPUT_NAME ggml-peer)
endif()

# llama-peer (tools/ggml-peer/llama_peer.cc): a GGUF model through llama.cpp's C API, where the
# peer build has llama's library (host; rv64gcv with scripts/peers/llama-cpp rv64gcv-llama).
if(VLAK_LAB_HAVE_GGML AND EXISTS ${VLAK_GGML_DIR}/lib/libllama.a AND EXISTS ${VLAK_GGML_DIR}/include/llama.h)
  add_executable(llama_peer ${PROJECT_SOURCE_DIR}/tools/ggml-peer/llama_peer.cc)
  target_include_directories(llama_peer PRIVATE ${PROJECT_SOURCE_DIR}/tools/qemu-icount)
  target_include_directories(llama_peer SYSTEM PRIVATE ${VLAK_GGML_DIR}/include)
  target_link_libraries(llama_peer PRIVATE ${VLAK_GGML_DIR}/lib/libllama.a "-Wl,--start-group" ${_ggml_libs}
                                           "-Wl,--end-group" Threads::Threads m)
  set_target_properties(llama_peer PROPERTIES OUTPUT_NAME llama-peer)
endif()
