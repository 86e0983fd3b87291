// A shared library that has the name of a backend module but no dualrt_backend_entry symbol.
extern "C" __attribute__((visibility("default"))) int not_a_dualrt_backend() { return 0; }
