"""Where the page measures: the devices (backend and DUALRT_DEVICE) and what the machine is."""

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from typing import Dict, List, Optional


@dataclass
class Target:
    backend: str  # "cuda" or "opencl"
    device: str  # DUALRT_DEVICE ("" for the backend's default)
    name: str = ""  # the device's name, from dualrt-info
    driver: str = ""  # its driver version, from dualrt-info
    platform: str = ""

    def env(self) -> Dict[str, str]:
        env = {"DUALRT_BACKEND": self.backend}
        if self.device:
            env["DUALRT_DEVICE"] = self.device
        return env

    def label(self) -> str:
        return "CUDA" if self.backend == "cuda" else "OpenCL"


def dualrt_info(bin_dir: str, env: Optional[Dict[str, str]] = None) -> dict:
    """`dualrt-info --json` with `env` added; {} when it cannot run."""
    program = os.path.join(bin_dir, "dualrt-info")
    try:
        done = subprocess.run([program, "--json"], env={**os.environ, **(env or {})},
                              capture_output=True, text=True, timeout=120)
        return json.loads(done.stdout)
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return {}


def describe_target(bin_dir: str, target: Target) -> bool:
    """Fills in the selected device's name and driver; False when nothing is selected."""
    info = dualrt_info(bin_dir, target.env())
    selected = (info.get("selection") or {}).get("selected")
    if not selected:
        return False
    for device in info.get("devices", []):
        if device.get("backend") == selected.get("backend") and \
                device.get("index") == selected.get("index"):
            target.name = device.get("name", "")
            target.driver = device.get("driver_version", "")
            target.platform = device.get("platform", "")
            return True
    target.name = selected.get("name", "")
    return True


def nvidia_smi() -> str:
    """'NVIDIA H200, 580.159.04' per GPU, or '' without nvidia-smi."""
    if not shutil.which("nvidia-smi"):
        return ""
    try:
        done = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version",
                               "--format=csv,noheader"], capture_output=True, text=True,
                              timeout=60)
        return "; ".join(line.strip() for line in done.stdout.splitlines() if line.strip())
    except (OSError, subprocess.TimeoutExpired):
        return ""


def choose_targets(bin_dir: str, opencl_device: str, quick: bool) -> List[Target]:
    """CUDA where it has a device; OpenCL on `opencl_device` ('auto': an NVIDIA device where
    there is one, else the backend's default). --quick: OpenCL only where CUDA is missing."""
    info = dualrt_info(bin_dir)
    backends = {b.get("name"): b for b in info.get("backends", [])}
    devices = info.get("devices", [])
    targets = []
    cuda = backends.get("cuda", {})
    if cuda.get("available") and cuda.get("device_count", 0) > 0:
        targets.append(Target("cuda", ""))
    opencl = backends.get("opencl", {})
    if opencl.get("available") and opencl.get("device_count", 0) > 0 and \
            not (quick and targets):
        device = opencl_device
        if device == "auto":
            nvidia = any(d.get("backend") == "opencl" and "nvidia" in
                         (d.get("name", "") + d.get("vendor", "")).lower() for d in devices)
            device = "nvidia" if nvidia else ""
        targets.append(Target("opencl", device))
    return [t for t in targets if describe_target(bin_dir, t)]
