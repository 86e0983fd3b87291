// dualrt-info --json: what the text output says, as one JSON document. The keys are stable
// (new ones may be added, with a new format_version when a key changes meaning or type):
//
// {
//   "format_version": 1,
//   "dualrt_version": "0.1.0",                  libdualrt's version_string()
//   "backends": [                               every backend dualrt knows, available or not
//     { "name": "cuda" | "opencl",
//       "available": bool,
//       "reason": string,                       why it is unavailable; "" when available
//       "module_path": string,                  the module loaded, or looked for
//       "version": string,                      the backend's description; "" when unavailable
//       "device_count": integer }
//   ],
//   "devices": [                                every device of every available backend
//     { "backend": "cuda" | "opencl",
//       "index": integer,                       position within its backend (DUALRT_DEVICE=N)
//       "name", "vendor", "platform", "driver_version", "architecture": string,
//       "type": "gpu" | "cpu" | "accelerator" | "other",
//       "global_memory_bytes": integer,
//       "local_memory_bytes": integer,          per work-group (shared memory per block)
//       "compute_units": integer,
//       "max_work_group_size": integer,
//       "max_work_item_sizes": [integer, integer, integer],
//       "copy_engines": integer | null,         null: the backend cannot tell
//       "pci_bus_id": string | null,
//       "shares_host_memory": bool,
//       "can_map_host_memory": bool,
//       "zero_copy_worthwhile": bool }
//   ],
//   "peer_access": [                            pairs of devices whose buffers copy device to
//     { "backend": string,                      device directly (CUDA peer access); every other
//       "a": integer, "b": integer }            pair of devices copies through pinned host memory
//   ],
//   "selection": {
//     "asked": { "backend": string,             DUALRT_BACKEND or --backend ("auto" when unset)
//                "device": string },            DUALRT_DEVICE or --device ("" when unset)
//     "selected": { "backend": string, "index": integer, "name": string } | null
//   },
//   "error": null | { "errc": string,          dualrt::Errc as text ("invalid_argument", ...);
//                                               "other" for a failure outside dualrt
//                     "message": string }       the full message
// }
//
// "error" is set, and "selected" null, when the selection cannot be honoured or anything else
// fails (then the lists hold what was found before the failure).
#pragma once

#include <dualrt/runtime.hpp>

#include <ostream>

namespace dualrt::samples::info {

// Writes the document (indented, one trailing newline) to `out`. Returns true when a device was
// selected, false when "error" is set. Failures go into the document: it throws nothing of
// dualrt's.
bool write_json(std::ostream& out, const Selection& selection);

}  // namespace dualrt::samples::info
