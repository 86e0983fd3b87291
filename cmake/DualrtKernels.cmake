# Kernel build helpers: embedding kernel files into a target and checking that every kernel has
# a twin with the same name and parameter types in the other backend.
include_guard(GLOBAL)
include(${CMAKE_CURRENT_LIST_DIR}/kernel_signatures.cmake)
set(DUALRT_KERNEL_CMAKE_DIR ${CMAKE_CURRENT_LIST_DIR})

# dualrt_embed_kernels(<out_var> FUNCTION <cxx_function> FILES <files...>)
# Generates a .cpp (path returned in out_var) defining
#   const dualrt::detail::EmbeddedKernelTable& <cxx_function>();
# with the bytes of each file and the kernels it defines. Regenerated when a file changes.
function(dualrt_embed_kernels out_var)
  cmake_parse_arguments(ARG "" "FUNCTION" "FILES" ${ARGN})
  if(NOT ARG_FUNCTION OR NOT ARG_FILES)
    message(FATAL_ERROR "dualrt_embed_kernels needs FUNCTION and FILES")
  endif()
  set(output ${CMAKE_CURRENT_BINARY_DIR}/${ARG_FUNCTION}.cpp)
  string(REPLACE ";" "$<SEMICOLON>" files_arg "${ARG_FILES}")
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${output} -DFUNCTION=${ARG_FUNCTION}
            "-DFILES=${files_arg}" -P ${DUALRT_KERNEL_CMAKE_DIR}/embed_kernels.cmake
    DEPENDS ${ARG_FILES} ${DUALRT_KERNEL_CMAKE_DIR}/embed_kernels.cmake
            ${DUALRT_KERNEL_CMAKE_DIR}/kernel_signatures.cmake
    COMMENT "Embedding kernels for ${ARG_FUNCTION}"
    VERBATIM)
  set(${out_var} ${output} PARENT_SCOPE)
endfunction()

# dualrt_check_kernel_twins(CL_DIR <dir> CU_DIR <dir>)
# Fails the configure step when a kernel file or kernel exists in one folder and not the other,
# or when twins differ in parameter types. A file that says `dualrt: backend-only` in a comment is
# exempt. Re-run automatically when a kernel file is added or edited.
function(dualrt_check_kernel_twins)
  cmake_parse_arguments(ARG "" "CL_DIR;CU_DIR" "" ${ARGN})
  file(GLOB cl_files CONFIGURE_DEPENDS ${ARG_CL_DIR}/*.cl)
  file(GLOB cu_files CONFIGURE_DEPENDS ${ARG_CU_DIR}/*.cu)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${cl_files} ${cu_files})
  set(errors "")
  foreach(cl_file IN LISTS cl_files)
    get_filename_component(stem ${cl_file} NAME_WE)
    set(cu_file ${ARG_CU_DIR}/${stem}.cu)
    file(READ ${cl_file} cl_text)
    if(cl_text MATCHES "dualrt: backend-only")
      continue()
    endif()
    if(NOT EXISTS ${cu_file})
      string(APPEND errors "  kernels/cl/${stem}.cl has no twin kernels/cu/${stem}.cu\n")
      continue()
    endif()
    dualrt_kernel_names(${cl_file} cl_names)
    dualrt_kernel_names(${cu_file} cu_names)
    foreach(name IN LISTS cl_names)
      if(NOT name IN_LIST cu_names)
        string(APPEND errors "  kernel '${name}' is in kernels/cl/${stem}.cl but not in kernels/cu/${stem}.cu\n")
        continue()
      endif()
      dualrt_kernel_params(${cl_file} ${name} cl_params)
      dualrt_kernel_params(${cu_file} ${name} cu_params)
      if(NOT cl_params STREQUAL cu_params)
        string(REPLACE ";" ", " cl_params "${cl_params}")
        string(REPLACE ";" ", " cu_params "${cu_params}")
        string(APPEND errors "  kernel '${name}' has parameters (${cl_params}) in ${stem}.cl but (${cu_params}) in ${stem}.cu\n")
      endif()
    endforeach()
    foreach(name IN LISTS cu_names)
      if(NOT name IN_LIST cl_names)
        string(APPEND errors "  kernel '${name}' is in kernels/cu/${stem}.cu but not in kernels/cl/${stem}.cl\n")
      endif()
    endforeach()
    file(READ ${cu_file} cu_text)
    if(cu_names AND NOT cu_text MATCHES "extern \"C\"")
      string(APPEND errors "  kernels/cu/${stem}.cu must declare its kernels extern \"C\" so they are found by name\n")
    endif()
  endforeach()
  foreach(cu_file IN LISTS cu_files)
    get_filename_component(stem ${cu_file} NAME_WE)
    file(READ ${cu_file} cu_text)
    if(NOT cu_text MATCHES "dualrt: backend-only" AND NOT EXISTS ${ARG_CL_DIR}/${stem}.cl)
      string(APPEND errors "  kernels/cu/${stem}.cu has no twin kernels/cl/${stem}.cl\n")
    endif()
  endforeach()
  if(errors)
    message(FATAL_ERROR "Kernel twins differ between ${ARG_CL_DIR} and ${ARG_CU_DIR}:\n${errors}"
                        "Every kernel needs the same name and parameter types in both backends "
                        "(mark a file `dualrt: backend-only` in a comment to exempt it).")
  endif()
endfunction()
