"""The first built-in workloads: small, well-known CUDA kernels with NumPy references."""
