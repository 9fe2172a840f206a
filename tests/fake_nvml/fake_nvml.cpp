// Fake libnvidia-ml.so.1: filled in with the NVML module.
