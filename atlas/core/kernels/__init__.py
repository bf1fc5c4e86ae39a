"""The kernel pages' in-page models, standard library only: the systolic-array simulator (``systolic``) and the
roofline model (``roofline``) — the files the kernel pages display and the GPU demos (``atlas/demos/``) reuse — and
``demo_workloads``, what the GPU demos run (their names, the fused operations' passes, the FMA chain's intensity),
shared with the build's kernel tables."""
