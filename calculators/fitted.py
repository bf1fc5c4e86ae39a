"""Fitted parameters of the speed model — written by ``python -m atlas fit`` (``make fit``); do not edit.

PARAMS: per feature of ``calculators.speed_model.FEATURES`` a global value and the per-engine,
per-engine-and-device-class and per-link corrections the measurements support (logits of efficiencies,
natural logarithms of seconds). PROVENANCE: when and on what it was fitted, and the cross-validated
error per group of cases (each source left out of the fit that predicts it).
"""

PARAMS = {'allreduce': {'global': -10.819778},
 'allreduce_bytes': {'global': 0.405465},
 'attention': {'global': -0.847298},
 'compute_decode': {'global': -0.847298},
 'compute_prefill': {'global': 0.0},
 'hop': {'global': -9.21034},
 'host_mem': {'global': 0.405465},
 'layer_steps': {'global': -10.819778},
 'mem': {'global': 1.098612},
 'pcie_copy': {'global': 0.847298},
 'step': {'global': -8.517193}}

PROVENANCE = {'cases': 0, 'cross_validated': {}, 'date': '2026-12-03', 'sources': [], 'train_median_abs_error': None}
