# cmake -P: configures, builds and runs tests/consumer/mpi against an installed dualrt.
#   PREFIX, BINARY_DIR, GENERATOR, CXX_COMPILER, BUILD_TYPE as in ../run_cmake_consumer.cmake
cmake_minimum_required(VERSION 3.25)
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
run("configuring the MPI consumer"
    ${CMAKE_COMMAND} -S ${CMAKE_CURRENT_LIST_DIR} -B ${BINARY_DIR} -G ${GENERATOR}
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_BUILD_TYPE=${BUILD_TYPE}
    -DCMAKE_PREFIX_PATH=${PREFIX})
run("building the MPI consumer" ${CMAKE_COMMAND} --build ${BINARY_DIR})
run("mpi_consumer" ${CMAKE_COMMAND} -E env --unset=DUALRT_PLUGIN_PATH ${BINARY_DIR}/mpi_consumer)
