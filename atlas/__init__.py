"""Accelerator Atlas: the data set's code, the estimators behind the calculators, and the kernel demos.

The sub-packages are the parts of the project (README, "Layout"); each imports only the parts below it:

- ``atlas.data``: loading and validation of ``data/``, the export, the speed-model fit, build-time tables.

Standard library only and imports nothing: this file also ships in the browser bundle.
"""
