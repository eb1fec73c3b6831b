"""pytest plugins of the test suite, loaded with ``-p tests.plugins.<name>``."""
