# Kernel build helpers: embedding kernel files into a target and checking that every kernel has
# a twin with the same name and parameter types in the other backend.
include_guard(GLOBAL)
include(${CMAKE_CURRENT_LIST_DIR}/kernel_signatures.cmake)
set(DUALRT_KERNEL_CMAKE_DIR ${CMAKE_CURRENT_LIST_DIR})

# dualrt_embed_kernels(<out_var> FUNCTION <cxx_function> FILES <files...> [NAMES_FROM <sources...>]
#                      [OUTPUT_DIR <dir>])
# Generates <OUTPUT_DIR, default the current binary folder>/<cxx_function>.cpp (path returned in
# out_var) defining
#   const dualrt::detail::EmbeddedKernelTable& <cxx_function>();
# with the bytes of each file and the kernels it defines. Regenerated when a file changes.
# NAMES_FROM, one source per file, is where the kernel names are read when the files themselves
# are binaries (fatbins compiled from those sources).
function(dualrt_embed_kernels out_var)
  cmake_parse_arguments(ARG "" "FUNCTION;OUTPUT_DIR" "FILES;NAMES_FROM" ${ARGN})
  if(NOT ARG_FUNCTION OR NOT ARG_FILES)
    message(FATAL_ERROR "dualrt_embed_kernels needs FUNCTION and FILES")
  endif()
  if(NOT ARG_NAMES_FROM)
    set(ARG_NAMES_FROM ${ARG_FILES})
  endif()
  if(NOT ARG_OUTPUT_DIR)
    set(ARG_OUTPUT_DIR ${CMAKE_CURRENT_BINARY_DIR})
  endif()
  set(output ${ARG_OUTPUT_DIR}/${ARG_FUNCTION}.cpp)
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

# dualrt_nvcc_flags(<gencode_var> <text_var> <werror_var> <architectures...>): what every nvcc
# command of the build passes for the architectures listed ("75;80;90"): SASS for each, plus PTX
# of the newest, which the driver compiles for GPUs that come later. <text_var> describes them
# for build messages ("sm_75, sm_80, sm_90, PTX 90"); <werror_var> holds the flag that makes
# warnings errors when DUALRT_WERROR is on.
function(dualrt_nvcc_flags gencode_var text_var werror_var)
  set(architectures ${ARGN})
  list(SORT architectures COMPARE NATURAL)
  list(GET architectures -1 newest)
  set(gencode "")
  foreach(arch IN LISTS architectures)
    if(NOT arch MATCHES "^[0-9]+[a-z]?$")
      message(FATAL_ERROR "CUDA architecture '${arch}' is not a number like 90 (for sm_90)")
    endif()
    if(arch STREQUAL newest)
      list(APPEND gencode "--generate-code=arch=compute_${arch},code=[sm_${arch},compute_${arch}]")
    else()
      list(APPEND gencode "--generate-code=arch=compute_${arch},code=sm_${arch}")
    endif()
  endforeach()
  string(REPLACE ";" ", sm_" text "sm_${architectures}")
  set(werror "")
  if(DUALRT_WERROR)
    set(werror --Werror all-warnings)
  endif()
  set(${gencode_var} ${gencode} PARENT_SCOPE)
  set(${text_var} "${text}, PTX ${newest}" PARENT_SCOPE)
  set(${werror_var} ${werror} PARENT_SCOPE)
endfunction()

# dualrt_compile_fatbins(<out_var> SOURCES <.cu files...> ARCHITECTURES <list> [INCLUDE_DIRS <dirs>]
#                        [OUTPUT_DIR <dir>])
# Compiles each .cu file with nvcc into <stem>.fatbin in OUTPUT_DIR, default the current binary
# folder (paths returned
# in out_var): SASS for every architecture listed ("75;80;90"), plus PTX of the newest, which the
# driver compiles for GPUs that come later. Needs CUDAToolkit_NVCC_EXECUTABLE (find_package
# CUDAToolkit). Warnings are errors when DUALRT_WERROR is on.
function(dualrt_compile_fatbins out_var)
  cmake_parse_arguments(ARG "" "OUTPUT_DIR" "SOURCES;ARCHITECTURES;INCLUDE_DIRS" ${ARGN})
  if(NOT ARG_OUTPUT_DIR)
    set(ARG_OUTPUT_DIR ${CMAKE_CURRENT_BINARY_DIR})
  endif()
  if(NOT ARG_ARCHITECTURES)
    message(FATAL_ERROR "dualrt_compile_fatbins needs ARCHITECTURES, e.g. 75;80;90")
  endif()
  dualrt_nvcc_flags(gencode arch_text werror ${ARG_ARCHITECTURES})
  set(includes "")
  set(headers "")
  foreach(dir IN LISTS ARG_INCLUDE_DIRS)
    list(APPEND includes -I${dir})
    file(GLOB dir_headers CONFIGURE_DEPENDS ${dir}/*.cuh)
    list(APPEND headers ${dir_headers})
  endforeach()
  set(outputs "")
  foreach(source IN LISTS ARG_SOURCES)
    get_filename_component(stem ${source} NAME_WE)
    set(output ${ARG_OUTPUT_DIR}/${stem}.fatbin)
    add_custom_command(
      OUTPUT ${output}
      COMMAND ${CUDAToolkit_NVCC_EXECUTABLE} --fatbin -std=c++17 -ccbin ${CMAKE_CXX_COMPILER}
              ${werror} ${includes} ${gencode} -o ${output} ${source}
      DEPENDS ${source} ${headers}
      COMMENT "nvcc: ${stem}.cu -> ${stem}.fatbin (${arch_text})"
      VERBATIM)
    list(APPEND outputs ${output})
  endforeach()
  set(${out_var} ${outputs} PARENT_SCOPE)
endfunction()

# dualrt_check_kernel_file_twins(CL_FILES <files...> CU_FILES <files...>)
# Fails the configure step when a kernel file or kernel exists in one list and not the other (files
# pair up by name: my_ops.cl with my_ops.cu), or when twins differ in parameter types. A file that
# says `dualrt: backend-only` in a comment is exempt. Re-run automatically when a file is edited.
function(dualrt_check_kernel_file_twins)
  cmake_parse_arguments(ARG "" "" "CL_FILES;CU_FILES" ${ARGN})
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${ARG_CL_FILES} ${ARG_CU_FILES})
  foreach(cu_file IN LISTS ARG_CU_FILES)
    get_filename_component(stem ${cu_file} NAME_WE)
    set(cu_file_${stem} ${cu_file})
  endforeach()
  set(errors "")
  foreach(cl_file IN LISTS ARG_CL_FILES)
    get_filename_component(stem ${cl_file} NAME_WE)
    file(READ ${cl_file} cl_text)
    if(cl_text MATCHES "dualrt: backend-only")
      continue()
    endif()
    if(NOT DEFINED cu_file_${stem})
      string(APPEND errors "  ${cl_file} has no twin ${stem}.cu\n")
      continue()
    endif()
    set(cu_file ${cu_file_${stem}})
    dualrt_kernel_names(${cl_file} cl_names)
    dualrt_kernel_names(${cu_file} cu_names)
    foreach(name IN LISTS cl_names)
      if(NOT name IN_LIST cu_names)
        string(APPEND errors "  kernel '${name}' is in ${cl_file} but not in ${cu_file}\n")
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
        string(APPEND errors "  kernel '${name}' is in ${cu_file} but not in ${cl_file}\n")
      endif()
    endforeach()
    file(READ ${cu_file} cu_text)
    if(cu_names AND NOT cu_text MATCHES "extern \"C\"")
      string(APPEND errors "  ${cu_file} must declare its kernels extern \"C\" so they are found by name\n")
    endif()
  endforeach()
  set(cl_stems "")
  foreach(cl_file IN LISTS ARG_CL_FILES)
    get_filename_component(stem ${cl_file} NAME_WE)
    list(APPEND cl_stems ${stem})
  endforeach()
  foreach(cu_file IN LISTS ARG_CU_FILES)
    get_filename_component(stem ${cu_file} NAME_WE)
    file(READ ${cu_file} cu_text)
    if(NOT cu_text MATCHES "dualrt: backend-only" AND NOT stem IN_LIST cl_stems)
      string(APPEND errors "  ${cu_file} has no twin ${stem}.cl\n")
    endif()
  endforeach()
  if(errors)
    message(FATAL_ERROR "Kernel twins differ between the OpenCL and the CUDA files:\n${errors}"
                        "Every kernel needs the same name and parameter types in both backends "
                        "(mark a file `dualrt: backend-only` in a comment to exempt it).")
  endif()
endfunction()

# dualrt_check_kernel_twins(CL_DIR <dir> CU_DIR <dir>)
# The twin check over every .cl file of CL_DIR and every .cu file of CU_DIR (the built-in kernels).
# Re-run automatically when a kernel file is added or edited.
function(dualrt_check_kernel_twins)
  cmake_parse_arguments(ARG "" "CL_DIR;CU_DIR" "" ${ARGN})
  file(GLOB cl_files CONFIGURE_DEPENDS ${ARG_CL_DIR}/*.cl)
  file(GLOB cu_files CONFIGURE_DEPENDS ${ARG_CU_DIR}/*.cu)
  dualrt_check_kernel_file_twins(CL_FILES ${cl_files} CU_FILES ${cu_files})
endfunction()

# dualrt_add_kernels(<target> <files...> [CUDA_ARCHITECTURES <list>])
# Embeds a program's own kernel twins into <target> (an executable, shared library or module) so
# that Device::kernel("name") finds them next to the built-in ones, on either backend:
#   - .cl files are embedded as text and built by the OpenCL driver on first use (and cached on
#     disk, see docs/program-cache.md);
#   - .cu files are compiled by nvcc into fatbins (SASS for CUDA_ARCHITECTURES, default
#     DUALRT_CUDA_ARCHITECTURES, plus PTX of the newest) when the CUDA Toolkit is found, and
#     embedded as text as well: for the kernels' signatures, and for NVRTC, which compiles them on
#     first use when this build had no nvcc.
# The twin check of the built-in kernels applies (same kernel names and parameter types in both).
# The kernels register themselves while the program starts (a static object in a generated file),
# so a STATIC library is refused: the linker would drop that object.
function(dualrt_add_kernels target)
  cmake_parse_arguments(ARG "" "" "CUDA_ARCHITECTURES" ${ARGN})
  if(NOT TARGET ${target})
    message(FATAL_ERROR "dualrt_add_kernels: '${target}' is not a target (create it with "
                        "add_executable or add_library first)")
  endif()
  get_target_property(type ${target} TYPE)
  if(NOT type MATCHES "^(EXECUTABLE|SHARED_LIBRARY|MODULE_LIBRARY)$")
    message(FATAL_ERROR "dualrt_add_kernels: target '${target}' is a ${type}; kernels register "
                        "themselves through a static object that a static library would lose at "
                        "link time, so add them to the executable or shared library instead")
  endif()
  set(cl_files "")
  set(cu_files "")
  foreach(file IN LISTS ARG_UNPARSED_ARGUMENTS)
    get_filename_component(path ${file} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    if(NOT EXISTS ${path})
      message(FATAL_ERROR "dualrt_add_kernels(${target}): no file ${path}")
    elseif(path MATCHES "\\.cl$")
      list(APPEND cl_files ${path})
    elseif(path MATCHES "\\.cu$")
      list(APPEND cu_files ${path})
    else()
      message(FATAL_ERROR "dualrt_add_kernels(${target}): ${file} is neither a .cl nor a .cu file")
    endif()
  endforeach()
  if(NOT cl_files AND NOT cu_files)
    message(FATAL_ERROR "dualrt_add_kernels(${target}): no kernel files given")
  endif()
  dualrt_check_kernel_file_twins(CL_FILES ${cl_files} CU_FILES ${cu_files})

  # C identifiers for the generated functions, and a folder of the target's own for its outputs
  # (two targets may both have a kernels/ops.cu).
  string(MAKE_C_IDENTIFIER "${target}" id)
  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/dualrt_kernels/${id})
  set(sources "")
  set(opencl_table "nullptr")
  set(cuda_source_table "nullptr")
  set(cuda_fatbin_table "nullptr")
  set(declarations "")
  if(cl_files)
    dualrt_embed_kernels(cpp FUNCTION dualrt_kernels_${id}_opencl FILES ${cl_files}
                         OUTPUT_DIR ${out_dir})
    list(APPEND sources ${cpp})
    set(opencl_table "&dualrt_kernels_${id}_opencl()")
    string(APPEND declarations "const dualrt::detail::EmbeddedKernelTable& dualrt_kernels_${id}_opencl();\n")
  endif()
  if(cu_files)
    dualrt_embed_kernels(cpp FUNCTION dualrt_kernels_${id}_cuda_sources FILES ${cu_files}
                         OUTPUT_DIR ${out_dir})
    list(APPEND sources ${cpp})
    set(cuda_source_table "&dualrt_kernels_${id}_cuda_sources()")
    string(APPEND declarations "const dualrt::detail::EmbeddedKernelTable& dualrt_kernels_${id}_cuda_sources();\n")
    if(NOT ARG_CUDA_ARCHITECTURES)
      set(ARG_CUDA_ARCHITECTURES ${DUALRT_CUDA_ARCHITECTURES})
    endif()
    if(NOT CUDAToolkit_NVCC_EXECUTABLE)
      find_package(CUDAToolkit QUIET)
    endif()
    if(CUDAToolkit_NVCC_EXECUTABLE AND ARG_CUDA_ARCHITECTURES)
      dualrt_compile_fatbins(fatbins SOURCES ${cu_files} ARCHITECTURES ${ARG_CUDA_ARCHITECTURES}
                             INCLUDE_DIRS ${DUALRT_KERNEL_INCLUDE_DIR} OUTPUT_DIR ${out_dir})
      dualrt_embed_kernels(cpp FUNCTION dualrt_kernels_${id}_cuda_fatbins FILES ${fatbins}
                           NAMES_FROM ${cu_files} OUTPUT_DIR ${out_dir})
      list(APPEND sources ${cpp})
      set(cuda_fatbin_table "&dualrt_kernels_${id}_cuda_fatbins()")
      string(APPEND declarations "const dualrt::detail::EmbeddedKernelTable& dualrt_kernels_${id}_cuda_fatbins();\n")
    else()
      message(STATUS "dualrt_add_kernels(${target}): no nvcc (CUDA Toolkit not found), so the "
                     ".cu kernels are compiled with NVRTC when first used on a CUDA device")
    endif()
  endif()

  set(registration ${out_dir}/register_kernels.cpp)
  file(CONFIGURE OUTPUT ${registration} @ONLY CONTENT [[
// Generated by dualrt_add_kernels(@target@). Do not edit.
// Registers the target's kernels with dualrt while the program starts, and unregisters them when
// it ends (or when the shared library holding them is unloaded).
#include <dualrt/embedded_kernels.hpp>

@declarations@
namespace {

const dualrt::detail::KernelBundle& bundle() {
    static const dualrt::detail::KernelBundle instance{
        dualrt::detail::kernel_bundle_layout, "@target@", @opencl_table@, @cuda_source_table@,
        @cuda_fatbin_table@};
    return instance;
}

struct Registration {
    Registration() { dualrt::detail::register_kernel_bundle(&bundle()); }
    ~Registration() { dualrt::detail::unregister_kernel_bundle(&bundle()); }
    Registration(const Registration&) = delete;
    Registration& operator=(const Registration&) = delete;
};

const Registration registration;

}  // namespace
]])
  list(APPEND sources ${registration})
  target_sources(${target} PRIVATE ${sources})
  # The generated files include <dualrt/embedded_kernels.hpp> and call into libdualrt. Appending
  # to the property (not target_link_libraries) works whichever signature the project used.
  if(TARGET dualrt::dualrt)
    set_property(TARGET ${target} APPEND PROPERTY LINK_LIBRARIES dualrt::dualrt)
  else()
    set_property(TARGET ${target} APPEND PROPERTY LINK_LIBRARIES dualrt)
  endif()
endfunction()
