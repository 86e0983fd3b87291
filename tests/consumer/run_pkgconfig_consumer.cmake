# cmake -P: builds pkg-config/main.cpp with the compiler alone and the flags
# `pkg-config --cflags --libs dualrt` gives for an installed dualrt, then runs it. Variables:
#   PREFIX, BINARY_DIR, CXX_COMPILER, PKG_CONFIG, VERSION (the dualrt version expected)
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE ${BINARY_DIR})
file(MAKE_DIRECTORY ${BINARY_DIR})
set(ENV{PKG_CONFIG_PATH} ${PREFIX}/lib/pkgconfig)

function(query out_var)
  execute_process(COMMAND ${PKG_CONFIG} ${ARGN} dualrt RESULT_VARIABLE result
                  OUTPUT_VARIABLE out ERROR_VARIABLE err OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "pkg-config ${ARGN} dualrt failed: ${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

query(version --modversion)
if(NOT version STREQUAL VERSION)
  message(FATAL_ERROR "pkg-config says dualrt ${version}, the build is ${VERSION}")
endif()
query(cflags --cflags)
query(libs --libs)
query(libdir --variable=libdir)
separate_arguments(cflags UNIX_COMMAND "${cflags}")
separate_arguments(libs UNIX_COMMAND "${libs}")
message("pkg-config: ${cflags} ${libs}")

set(program ${BINARY_DIR}/pkgconfig_consumer)
execute_process(COMMAND ${CXX_COMPILER} -std=c++17 ${cflags}
                        ${CMAKE_CURRENT_LIST_DIR}/pkg-config/main.cpp ${libs}
                        -Wl,-rpath,${libdir} -o ${program}
                RESULT_VARIABLE result ERROR_VARIABLE err)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "compiling with pkg-config's flags failed:\n${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=DUALRT_PLUGIN_PATH ${program}
                RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(result EQUAL 77)
  message("SKIPPED: the pkg-config consumer found no device")
elseif(NOT result EQUAL 0)
  message(FATAL_ERROR "the pkg-config consumer failed (exit ${result})")
endif()
