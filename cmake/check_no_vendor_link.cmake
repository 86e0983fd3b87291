# cmake -P script for a CTest entry: fails when any of FILES (';'-separated) loads libOpenCL or
# libcuda, directly or through another library. Only the backend modules may link them.
foreach(file IN LISTS FILES)
  execute_process(COMMAND ldd ${file} OUTPUT_VARIABLE deps RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ldd ${file} failed (${rc})")
  endif()
  if(deps MATCHES "(libOpenCL|libcuda)[^ \t\n]*")
    message(FATAL_ERROR "${file} links ${CMAKE_MATCH_0}; only backend modules may:\n${deps}")
  endif()
  get_filename_component(name ${file} NAME)
  message(STATUS "${name}: no libOpenCL or libcuda among its libraries")
endforeach()
