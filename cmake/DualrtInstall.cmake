# `cmake --install`: the library, its headers, the backend modules, the samples, a CMake config
# package (find_package(dualrt CONFIG) -> dualrt::dualrt, dualrt_add_kernels) and a pkg-config
# file. Everything is relocatable: the install may be moved or made with --prefix elsewhere.
#
# Layout under the prefix:
#   include/dualrt/*.hpp            the public headers
#   include/dualrt/kernels/         dualrt_kernel.cuh, for users' .cu kernels
#   lib/libdualrt.so.<version>      with SONAME libdualrt.so.<major>.<minor>
#   lib/dualrt/                     the backend modules and the samples' native baselines, which
#                                   libdualrt finds relative to itself (module_loader.cpp)
#   lib/cmake/dualrt/               the CMake package
#   lib/pkgconfig/dualrt.pc
#   bin/                            dualrt-info and the samples
include_guard(GLOBAL)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(DUALRT_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/dualrt)
set(DUALRT_INSTALL_MODULEDIR ${CMAKE_INSTALL_LIBDIR}/dualrt)

# A sanitized build (cmake/Sanitizers.cmake) tells its users to link the sanitizer runtimes.
set(DUALRT_PC_LINK_FLAGS "")
if(DUALRT_SANITIZERS)
  set_property(TARGET dualrt APPEND PROPERTY INTERFACE_LINK_OPTIONS ${DUALRT_SANITIZER_LINK_FLAGS})
  list(JOIN DUALRT_SANITIZER_LINK_FLAGS " " DUALRT_PC_LINK_FLAGS)
  string(APPEND DUALRT_PC_LINK_FLAGS " ")
endif()

install(TARGETS dualrt EXPORT dualrtTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/core/include/dualrt
                  ${PROJECT_SOURCE_DIR}/pipeline/include/dualrt
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.hpp")
install(FILES ${PROJECT_BINARY_DIR}/core/include/dualrt/version.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/dualrt)
install(FILES ${PROJECT_SOURCE_DIR}/kernels/cu/dualrt_kernel.cuh
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/dualrt/kernels)

# Modules: nothing links them; they find libdualrt (already loaded by then) one folder up.
foreach(module IN ITEMS dualrt_opencl dualrt_cuda dualrt_native_opencl dualrt_native_cuda
                       dualrt_vendor_cuda)
  if(TARGET ${module})
    set_target_properties(${module} PROPERTIES INSTALL_RPATH "$ORIGIN/..")
    install(TARGETS ${module} LIBRARY DESTINATION ${DUALRT_INSTALL_MODULEDIR})
  endif()
endforeach()

# Programs: libdualrt is in ../lib relative to bin/.
file(RELATIVE_PATH bin_to_lib ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR})
foreach(program IN ITEMS dualrt-info saxpy bandwidth launch_cost overlap program_cache stream stencil
                        reduce transpose matmul coalescing occupancy)
  if(TARGET ${program})
    set_target_properties(${program} PROPERTIES INSTALL_RPATH "$ORIGIN/${bin_to_lib}")
    install(TARGETS ${program} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endforeach()

# The CMake package: targets, version (same minor: 0.x releases break the ABI, as the SONAME
# says), and the kernel helpers for dualrt_add_kernels.
install(EXPORT dualrtTargets NAMESPACE dualrt:: DESTINATION ${DUALRT_INSTALL_CMAKEDIR})
set(DUALRT_INSTALL_KERNEL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/dualrt/kernels)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/dualrtConfig.cmake.in
  ${PROJECT_BINARY_DIR}/dualrtConfig.cmake
  INSTALL_DESTINATION ${DUALRT_INSTALL_CMAKEDIR}
  PATH_VARS DUALRT_INSTALL_KERNEL_INCLUDEDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/dualrtConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/dualrtConfig.cmake
  ${PROJECT_BINARY_DIR}/dualrtConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/DualrtKernels.cmake
  ${PROJECT_SOURCE_DIR}/cmake/embed_kernels.cmake
  ${PROJECT_SOURCE_DIR}/cmake/kernel_signatures.cmake
  DESTINATION ${DUALRT_INSTALL_CMAKEDIR})

# pkg-config: paths relative to the .pc file (${pcfiledir}), so the install can move.
file(RELATIVE_PATH pc_to_prefix ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" pc_to_prefix "${pc_to_prefix}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/dualrt.pc.in ${PROJECT_BINARY_DIR}/dualrt.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/dualrt.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# dualrt::mpi (built where MPI was found): its own export set, which the package loads when the
# consumer's MPI is found too (dualrtConfig.cmake), and dualrt-mpi.pc with MPI's flags as found
# here.
if(TARGET dualrt_mpi)
  install(TARGETS dualrt_mpi EXPORT dualrtMpiTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(FILES ${PROJECT_SOURCE_DIR}/mpi/include/dualrt/mpi.hpp
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/dualrt)
  install(EXPORT dualrtMpiTargets NAMESPACE dualrt:: DESTINATION ${DUALRT_INSTALL_CMAKEDIR})
  foreach(program IN ITEMS mpi_stencil mpi_bandwidth)
    if(TARGET ${program})
      set_target_properties(${program} PROPERTIES INSTALL_RPATH "$ORIGIN/${bin_to_lib}")
      install(TARGETS ${program} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
    endif()
  endforeach()
  set(DUALRT_PC_MPI_CFLAGS "")
  foreach(dir IN LISTS DUALRT_MPI_INCLUDE_DIRS)
    string(APPEND DUALRT_PC_MPI_CFLAGS " -I${dir}")
  endforeach()
  list(JOIN DUALRT_MPI_LIBRARIES " " DUALRT_PC_MPI_LIBS)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/dualrt-mpi.pc.in ${PROJECT_BINARY_DIR}/dualrt-mpi.pc
                 @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/dualrt-mpi.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()
