"""Build glue for MkDocs: the macros module (``main.py``, named in mkdocs.yml) and the hook files.

Everything here turns the project's packages into pages; nothing outside this folder imports it.
"""
