"""The browser tests use the pages' study (two computed rounds) and the browser fixtures.

The fixtures are imported here too, so the tests also run when ``-p tests.plugins.browser``
is not given.
"""

from tests.pages.conftest import pages_world
from tests.plugins.browser import chromium_driver, screenshot_dir

__all__ = ["chromium_driver", "pages_world", "screenshot_dir"]
