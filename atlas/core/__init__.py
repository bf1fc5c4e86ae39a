"""The browser core: the estimators (``calculators``), the calculator pages' HTML (``calcview``), the charts
(``charts``), the in-page kernel models (``kernels``) and their pages (``kernelview``), the translations
(``l10n``) and the entry points of the in-page runtime (``pyweb``).

Standard library only: the build zips this folder whole into the Pyodide bundle (``atlas.data.webbundle``), and
the same code runs in the build, the tests and the command line.
"""
