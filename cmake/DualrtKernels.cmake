# Kernel build helpers: embedding kernel files into a target and checking that every kernel has
# a twin with the same name and parameter types in the other backend.
include_guard(GLOBAL)
include(${CMAKE_CURRENT_LIST_DIR}/kernel_signatures.cmake)
set(DUALRT_KERNEL_CMAKE_DIR ${CMAKE_CURRENT_LIST_DIR})

# dualrt_embed_kernels(<out_var> FUNCTION <cxx_function> FILES <files...> [NAMES_FROM <sources...>])
# Generates a .cpp (path returned in out_var) defining
#   const dualrt::detail::EmbeddedKernelTable& <cxx_function>();
# with the bytes of each file and the kernels it defines. Regenerated when a file changes.
# NAMES_FROM, one source per file, is where the kernel names are read when the files themselves
# are binaries (fatbins compiled from those sources).
function(dualrt_embed_kernels out_var)
  cmake_parse_arguments(ARG "" "FUNCTION" "FILES;NAMES_FROM" ${ARGN})
  if(NOT ARG_FUNCTION OR NOT ARG_FILES)
    message(FATAL_ERROR "dualrt_embed_kernels needs FUNCTION and FILES")
  endif()
  if(NOT ARG_NAMES_FROM)
    set(ARG_NAMES_FROM ${ARG_FILES})
  endif()
  set(output ${CMAKE_CURRENT_BINARY_DIR}/${ARG_FUNCTION}.cpp)
  string(REPLACE ";" "$<SEMICOLON>" files_arg "${ARG_FILES}")
  string(REPLACE ";" "$<SEMICOLON>" names_arg "${ARG_NAMES_FROM}")
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${output} -DFUNCTION=${ARG_FUNCTION}
            "-DFILES=${files_arg}" "-DNAMES_FROM=${names_arg}"
            -P ${DUALRT_KERNEL_CMAKE_DIR}/embed_kernels.cmake
    DEPENDS ${ARG_FILES} ${ARG_NAMES_FROM} ${DUALRT_KERNEL_CMAKE_DIR}/embed_kernels.cmake
            ${DUALRT_KERNEL_CMAKE_DIR}/kernel_signatures.cmake
    COMMENT "Embedding kernels for ${ARG_FUNCTION}"
    VERBATIM)
  set(${out_var} ${output} PARENT_SCOPE)
endfunction()

# dualrt_compile_fatbins(<out_var> SOURCES <.cu files...> ARCHITECTURES <list> [INCLUDE_DIRS <dirs>])
# Compiles each .cu file with nvcc into <stem>.fatbin in the current binary folder (paths returned
# in out_var): SASS for every architecture listed ("75;80;90"), plus PTX of the newest, which the
# driver compiles for GPUs that come later. Needs CUDAToolkit_NVCC_EXECUTABLE (find_package
# CUDAToolkit). Warnings are errors when DUALRT_WERROR is on.
function(dualrt_compile_fatbins out_var)
  cmake_parse_arguments(ARG "" "" "SOURCES;ARCHITECTURES;INCLUDE_DIRS" ${ARGN})
  if(NOT ARG_ARCHITECTURES)
    message(FATAL_ERROR "dualrt_compile_fatbins needs ARCHITECTURES, e.g. 75;80;90")
  endif()
  list(SORT ARG_ARCHITECTURES COMPARE NATURAL)
  list(GET ARG_ARCHITECTURES -1 newest)
  set(gencode "")
  foreach(arch IN LISTS ARG_ARCHITECTURES)
    if(NOT arch MATCHES "^[0-9]+[a-z]?$")
      message(FATAL_ERROR "CUDA architecture '${arch}' is not a number like 90 (for sm_90)")
    endif()
    if(arch STREQUAL newest)
      list(APPEND gencode "--generate-code=arch=compute_${arch},code=[sm_${arch},compute_${arch}]")
    else()
      list(APPEND gencode "--generate-code=arch=compute_${arch},code=sm_${arch}")
    endif()
  endforeach()
  set(includes "")
  set(headers "")
  foreach(dir IN LISTS ARG_INCLUDE_DIRS)
    list(APPEND includes -I${dir})
    file(GLOB dir_headers CONFIGURE_DEPENDS ${dir}/*.cuh)
    list(APPEND headers ${dir_headers})
  endforeach()
  string(REPLACE ";" ", sm_" arch_text "sm_${ARG_ARCHITECTURES}")
  set(werror "")
  if(DUALRT_WERROR)
    set(werror --Werror all-warnings)
  endif()
  set(outputs "")
  foreach(source IN LISTS ARG_SOURCES)
    get_filename_component(stem ${source} NAME_WE)
    set(output ${CMAKE_CURRENT_BINARY_DIR}/${stem}.fatbin)
    add_custom_command(
      OUTPUT ${output}
      COMMAND ${CUDAToolkit_NVCC_EXECUTABLE} --fatbin -std=c++17 -ccbin ${CMAKE_CXX_COMPILER}
              ${werror} ${includes} ${gencode} -o ${output} ${source}
      DEPENDS ${source} ${headers}
      COMMENT "nvcc: ${stem}.cu -> ${stem}.fatbin (${arch_text}, PTX ${newest})"
      VERBATIM)
    list(APPEND outputs ${output})
  endforeach()
  set(${out_var} ${outputs} PARENT_SCOPE)
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
