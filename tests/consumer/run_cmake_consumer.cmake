# cmake -P: configures, builds and runs the consumer project (this folder) against an installed
# dualrt, the way a user's project would. Variables:
#   PREFIX      the install prefix (what `cmake --install --prefix` made)
#   BINARY_DIR  a scratch build folder (emptied first)
#   GENERATOR, CXX_COMPILER, BUILD_TYPE   as the dualrt build used
#   EXTRA_ARGS  more -D options, ';'-separated (e.g. -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON)
#   SOURCE_DIR  the project (default: this folder; mpi/ for the MPI consumer)
#   PROGRAMS    the programs it builds, run in turn (default: consumer;consumer_clash)
# The programs run with DUALRT_PLUGIN_PATH unset, so the backend modules must be found relative to
# the installed libdualrt.so. A program that finds no device prints "SKIPPED:" (CTest's skip).
cmake_minimum_required(VERSION 3.25)
set(source_dir ${CMAKE_CURRENT_LIST_DIR})
if(SOURCE_DIR)
  set(source_dir ${SOURCE_DIR})
endif()
if(NOT PROGRAMS)
  set(PROGRAMS consumer consumer_clash)
endif()
file(REMOVE_RECURSE ${BINARY_DIR})

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}${err}")
  if(result EQUAL 77)
    message("SKIPPED: ${what} found no device")
  elseif(NOT result EQUAL 0)
    message(FATAL_ERROR "${what} failed (exit ${result})")
  endif()
endfunction()

run("configuring the consumer project"
    ${CMAKE_COMMAND} -S ${source_dir} -B ${BINARY_DIR} -G ${GENERATOR}
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_BUILD_TYPE=${BUILD_TYPE}
    -DCMAKE_PREFIX_PATH=${PREFIX} ${EXTRA_ARGS})
run("building the consumer project" ${CMAKE_COMMAND} --build ${BINARY_DIR})
foreach(program IN LISTS PROGRAMS)
  run(${program} ${CMAKE_COMMAND} -E env --unset=DUALRT_PLUGIN_PATH ${BINARY_DIR}/${program})
endforeach()
