"""The correctness corpus: varied CUDA kernels that exercise the frontend and the functional engine."""
