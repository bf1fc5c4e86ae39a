"""The kernel pages' in-page models, standard library only: the systolic-array simulator (``systolic``) and the
roofline model (``roofline``) — the files the kernel pages display and the GPU demos (``kernels/``) reuse."""
