// The OpenCL C API, loaded at run time from the ICD loader (libOpenCL.so.1) for the interop tests,
// which make and inspect native objects the way an application does. Types come from CL/cl.h, so
// calls are checked as if the library were linked.
#pragma once

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <string>

namespace test::native {

// X(name) for every function the tests call.
#define TEST_OPENCL_FUNCTIONS(X)                                                               \
    X(clCreateContext) X(clRetainContext) X(clReleaseContext) X(clGetContextInfo)               \
    X(clCreateCommandQueueWithProperties) X(clRetainCommandQueue) X(clReleaseCommandQueue)      \
    X(clGetCommandQueueInfo) X(clFlush) X(clFinish)                                             \
    X(clCreateBuffer) X(clCreateSubBuffer) X(clRetainMemObject) X(clReleaseMemObject)           \
    X(clGetMemObjectInfo) X(clEnqueueWriteBuffer) X(clEnqueueReadBuffer)                        \
    X(clEnqueueMarkerWithWaitList) X(clCreateUserEvent) X(clSetUserEventStatus)                 \
    X(clRetainEvent) X(clReleaseEvent) X(clGetEventInfo)

struct OpenClFunctions {
#define TEST_OPENCL_DECLARE(name) decltype(&::name) name = nullptr;
    TEST_OPENCL_FUNCTIONS(TEST_OPENCL_DECLARE)
#undef TEST_OPENCL_DECLARE
};

// The functions, loaded once; nullptr with `why_not` when libOpenCL.so.1 or a function is missing.
const OpenClFunctions* opencl_functions(std::string& why_not);

// Throws std::runtime_error naming `call` and the code unless `code` is CL_SUCCESS.
void check(cl_int code, const char* call);

}  // namespace test::native
