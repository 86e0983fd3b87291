// Stands in for a vendor runtime (libcuda, libOpenCL) that a module links but a machine lacks.
extern "C" __attribute__((visibility("default"))) int fake_vendor_library_version() { return 1; }
