# DUALRT_SANITIZERS=ON builds every target of the project (libdualrt, the backend modules, the
# native baseline modules of bench/, the samples, the tests and their fake modules) with
# AddressSanitizer, whose LeakSanitizer checks for leaks at exit, and UndefinedBehaviorSanitizer.
# Included by the top-level CMakeLists.txt before any target is made, so the directory-wide
# options below reach all of them. The `sanitize` presets (CMakePresets.json) use it; CI runs the
# whole test suite so (.ci/run). Only C++ compiles get the flags: the fatbins nvcc builds from
# kernels/cu/ are device code, which the host sanitizers cannot instrument.
#
# Run-time options (ASAN_OPTIONS, UBSAN_OPTIONS, LSAN_OPTIONS) are in the `sanitize` test preset,
# the leak suppressions, which name only functions of PoCL's, in tools/sanitizers/lsan.supp.
option(DUALRT_SANITIZERS
       "Build everything with -fsanitize=address,undefined (ASan with its leak check, and UBSan)"
       OFF)
if(NOT DUALRT_SANITIZERS)
  return()
endif()
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "^(GNU|Clang)$")
  message(FATAL_ERROR "DUALRT_SANITIZERS needs GCC or Clang, not ${CMAKE_CXX_COMPILER_ID}")
endif()
include(CheckLinkerFlag)
check_linker_flag(CXX -fsanitize=address,undefined DUALRT_HAVE_SANITIZER_RUNTIMES)
if(NOT DUALRT_HAVE_SANITIZER_RUNTIMES)
  message(FATAL_ERROR "DUALRT_SANITIZERS: ${CMAKE_CXX_COMPILER} cannot link with "
                      "-fsanitize=address,undefined (on Debian, g++ brings libasan8 and libubsan1)")
endif()

# -fno-sanitize-recover=all: the first UBSan finding ends the program (as ASan's do), so no test
#   can pass over one. -fno-omit-frame-pointer: whole stacks through our code in every report.
set(DUALRT_SANITIZER_FLAGS -fsanitize=address,undefined -fno-omit-frame-pointer
    -fno-sanitize-recover=all)
add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:${DUALRT_SANITIZER_FLAGS}>")
# Executables link the sanitizer runtimes, so libasan comes first in every process, ahead of the
# modules that libdualrt dlopen()s later; shared libraries and modules record them as needed.
add_link_options(${DUALRT_SANITIZER_FLAGS})

# A sanitized libdualrt needs libasan to be the first library of the process that loads it, which
# only linking the program with -fsanitize=address does. The installed package says so to its
# users (cmake/DualrtInstall.cmake adds these to dualrt::dualrt and to pkg-config's Libs), so the
# consumer.* and docs.readme_example tests build and run their programs against this build's
# install exactly as a user's project would.
set(DUALRT_SANITIZER_LINK_FLAGS -fsanitize=address,undefined)
