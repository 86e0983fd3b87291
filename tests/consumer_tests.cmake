# Tests of dualrt as an installed package (included by the top-level CMakeLists.txt):
#   install.tree         `cmake --install` into <build>/test-install (the fixture the others need)
#   consumer.cmake       tests/consumer built with find_package + dualrt_add_kernels, run on every
#                        device; .cu kernels compiled by nvcc when the CUDA Toolkit is found
#   consumer.cmake.nvrtc the same with the CUDA Toolkit hidden: .cu kernels go to NVRTC at run time
#   consumer.pkgconfig   tests/consumer/pkg-config built with pkg-config's flags alone
#   docs.readme_example  the README's example, built the same way
set(DUALRT_TEST_PREFIX ${PROJECT_BINARY_DIR}/test-install)
add_test(NAME install.tree
         COMMAND ${CMAKE_COMMAND} --install ${PROJECT_BINARY_DIR} --prefix ${DUALRT_TEST_PREFIX}
                 --config $<CONFIG>)
set_tests_properties(install.tree PROPERTIES FIXTURES_SETUP dualrt_installed TIMEOUT 120)

set(consumer_dir ${PROJECT_SOURCE_DIR}/tests/consumer)
set(build_type ${CMAKE_BUILD_TYPE})
if(NOT build_type)
  set(build_type Release)
endif()
function(dualrt_consumer_test name extra_args)
  add_test(NAME ${name}
           COMMAND ${CMAKE_COMMAND} -DPREFIX=${DUALRT_TEST_PREFIX}
                   -DBINARY_DIR=${PROJECT_BINARY_DIR}/tests/${name}
                   "-DGENERATOR=${CMAKE_GENERATOR}" -DCXX_COMPILER=${CMAKE_CXX_COMPILER}
                   -DBUILD_TYPE=${build_type} "-DEXTRA_ARGS=${extra_args}"
                   -P ${consumer_dir}/run_cmake_consumer.cmake)
  set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED dualrt_installed
                       SKIP_REGULAR_EXPRESSION "SKIPPED:" TIMEOUT 600)
endfunction()
set(cuda_root "")
if(CUDAToolkit_BIN_DIR)
  get_filename_component(cuda_root ${CUDAToolkit_BIN_DIR} DIRECTORY)
  set(cuda_root -DCUDAToolkit_ROOT=${cuda_root})
endif()
dualrt_consumer_test(consumer.cmake "${cuda_root}")
if(cuda_root)
  dualrt_consumer_test(consumer.cmake.nvrtc -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON)
endif()

find_program(DUALRT_PKG_CONFIG NAMES pkgconf pkg-config)
if(DUALRT_PKG_CONFIG)
  # consumer.pkgconfig: tests/consumer/pkg-config/main.cpp; docs.readme_example: the README's.
  foreach(name_source IN ITEMS "consumer.pkgconfig|${consumer_dir}/pkg-config/main.cpp"
                               "docs.readme_example|${PROJECT_SOURCE_DIR}/README.md")
    string(REPLACE "|" ";" name_source "${name_source}")
    list(GET name_source 0 name)
    list(GET name_source 1 source)
    add_test(NAME ${name}
             COMMAND ${CMAKE_COMMAND} -DPREFIX=${DUALRT_TEST_PREFIX}
                     -DBINARY_DIR=${PROJECT_BINARY_DIR}/tests/${name} -DSOURCE=${source}
                     -DCXX_COMPILER=${CMAKE_CXX_COMPILER} -DPKG_CONFIG=${DUALRT_PKG_CONFIG}
                     -DVERSION=${PROJECT_VERSION}
                     -P ${consumer_dir}/run_pkgconfig_consumer.cmake)
    set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED dualrt_installed
                         SKIP_REGULAR_EXPRESSION "SKIPPED:" TIMEOUT 300)
  endforeach()
else()
  message(WARNING "pkg-config not found: the consumer.pkgconfig and docs.readme_example tests "
                  "are not registered "
                  "(on Debian: apt-get install pkgconf)")
endif()

# dualrt_add_kernels misused: the configure step fails with a message naming the mistake.
function(dualrt_bad_consumer_test mistake message)
  add_test(NAME consumer.bad_${mistake}
           COMMAND ${CMAKE_COMMAND} -S ${consumer_dir}/bad
                   -B ${PROJECT_BINARY_DIR}/tests/consumer.bad_${mistake}
                   -DCMAKE_PREFIX_PATH=${DUALRT_TEST_PREFIX} -DMISTAKE=${mistake}
                   -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON)
  set_tests_properties(consumer.bad_${mistake} PROPERTIES FIXTURES_REQUIRED dualrt_installed
                       PASS_REGULAR_EXPRESSION "${message}" TIMEOUT 120)
endfunction()
dualrt_bad_consumer_test(twin
  "kernel 'mismatch' has parameters \\(uint, float, float\\*\\) in mismatch.cl but \\(uint, int, float\\*\\) in mismatch.cu")
dualrt_bad_consumer_test(static "target 'bad' is a STATIC_LIBRARY; kernels register")
dualrt_bad_consumer_test(suffix "CMakeLists.txt is neither a .cl nor a .cu file")

# consumer.mpi: find_package(dualrt COMPONENTS mpi) and dualrt::mpi, where dualrt_mpi is built.
if(TARGET dualrt_mpi)
  add_test(NAME consumer.mpi
           COMMAND ${CMAKE_COMMAND} -DPREFIX=${DUALRT_TEST_PREFIX}
                   -DBINARY_DIR=${PROJECT_BINARY_DIR}/tests/consumer.mpi
                   "-DGENERATOR=${CMAKE_GENERATOR}" -DCXX_COMPILER=${CMAKE_CXX_COMPILER}
                   -DBUILD_TYPE=${build_type} -DSOURCE_DIR=${consumer_dir}/mpi
                   -DPROGRAMS=mpi_consumer -P ${consumer_dir}/run_cmake_consumer.cmake)
  set_tests_properties(consumer.mpi PROPERTIES FIXTURES_REQUIRED dualrt_installed
                       ENVIRONMENT "DUALRT_BACKEND=opencl;${DUALRT_MPI_TEST_ENVIRONMENT}"
                       SKIP_REGULAR_EXPRESSION "SKIPPED:" PASS_REGULAR_EXPRESSION "got 1 2 3 4"
                       TIMEOUT 600)
endif()
if(TARGET dualrt_mpi AND DUALRT_PKG_CONFIG)
  add_test(NAME consumer.pkgconfig.mpi
           COMMAND ${CMAKE_COMMAND} -DPREFIX=${DUALRT_TEST_PREFIX}
                   -DBINARY_DIR=${PROJECT_BINARY_DIR}/tests/consumer.pkgconfig.mpi
                   -DSOURCE=${consumer_dir}/mpi/main.cpp -DMODULE=dualrt-mpi
                   -DCXX_COMPILER=${CMAKE_CXX_COMPILER} -DPKG_CONFIG=${DUALRT_PKG_CONFIG}
                   -DVERSION=${PROJECT_VERSION}
                   -P ${consumer_dir}/run_pkgconfig_consumer.cmake)
  set_tests_properties(consumer.pkgconfig.mpi PROPERTIES FIXTURES_REQUIRED dualrt_installed
                       ENVIRONMENT "DUALRT_BACKEND=opencl;${DUALRT_MPI_TEST_ENVIRONMENT}"
                       SKIP_REGULAR_EXPRESSION "SKIPPED:" PASS_REGULAR_EXPRESSION "got 1 2 3 4"
                       TIMEOUT 300)
endif()
