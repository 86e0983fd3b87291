# cmake -P: builds a program with the compiler alone and the flags
# `pkg-config --cflags --libs dualrt` gives for an installed dualrt, then runs it. Variables:
#   PREFIX, BINARY_DIR, CXX_COMPILER, PKG_CONFIG, VERSION (the dualrt version expected)
#   MODULE   the pkg-config module (default dualrt; dualrt-mpi for the MPI component)
#   SOURCE   the program: a .cpp file, or a Markdown file whose first ```cpp block is the
#            program (the README's example, so that it cannot silently stop compiling)
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE ${BINARY_DIR})
file(MAKE_DIRECTORY ${BINARY_DIR})
if(SOURCE MATCHES "\\.md$")
  file(READ ${SOURCE} markdown)
  string(FIND "${markdown}" "```cpp\n" start)
  if(start EQUAL -1)
    message(FATAL_ERROR "${SOURCE} has no ```cpp block")
  endif()
  math(EXPR start "${start} + 7")
  string(SUBSTRING "${markdown}" ${start} -1 rest)
  string(FIND "${rest}" "```" end)
  string(SUBSTRING "${rest}" 0 ${end} code)
  set(SOURCE ${BINARY_DIR}/example.cpp)
  file(WRITE ${SOURCE} "${code}")
endif()
set(ENV{PKG_CONFIG_PATH} ${PREFIX}/lib/pkgconfig)
if(NOT MODULE)
  set(MODULE dualrt)  # or dualrt-mpi
endif()

function(query out_var)
  execute_process(COMMAND ${PKG_CONFIG} ${ARGN} ${MODULE} RESULT_VARIABLE result
                  OUTPUT_VARIABLE out ERROR_VARIABLE err OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "pkg-config ${ARGN} ${MODULE} failed: ${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

query(version --modversion)
if(NOT version STREQUAL VERSION)
  message(FATAL_ERROR "pkg-config says ${MODULE} ${version}, the build is ${VERSION}")
endif()
query(cflags --cflags)
query(libs --libs)
query(libdir --variable=libdir)
separate_arguments(cflags UNIX_COMMAND "${cflags}")
separate_arguments(libs UNIX_COMMAND "${libs}")
message("pkg-config: ${cflags} ${libs}")

set(program ${BINARY_DIR}/program)
execute_process(COMMAND ${CXX_COMPILER} -std=c++17 ${cflags}
                        ${SOURCE} ${libs}
                        -Wl,-rpath,${libdir} -o ${program}
                RESULT_VARIABLE result ERROR_VARIABLE err)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "compiling with pkg-config's flags failed:\n${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=DUALRT_PLUGIN_PATH ${program}
                RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(result EQUAL 77)
  message("SKIPPED: ${SOURCE} found no device")
elseif(NOT result EQUAL 0)
  message(FATAL_ERROR "${SOURCE} failed (exit ${result})")
endif()
