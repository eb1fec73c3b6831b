"""Inter-coder agreement coefficients, distances and their uncertainty.

A pure numpy/scipy library: it never imports Django, DRF or Celery, so it can be
used on its own (``from metrics import ...``) as well as by the server's workers.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
