"""A real headless Chromium for the HTML report tests (Debian's ``chromium`` + ``chromium-driver``, via selenium).

The browser runs offline: the page's own Content-Security-Policy forbids requests, and
:meth:`Browser.open` also records every request the page makes (performance log,
``Network.requestWillBeSent``) and every console message, so tests can assert that the
page asked for nothing but itself and logged no error. Nothing is downloaded: the
driver and the browser are the system's (``/usr/bin/chromedriver``, ``/usr/bin/chromium``).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
DRIVER_CANDIDATES = ("/usr/bin/chromedriver",)
INSTALL_HINT = (
    "install Debian's chromium and chromium-driver (apt-get install -y chromium chromium-driver; .ci/run does)"
)


def _find(candidates: tuple[str, ...], name: str) -> str:
    for path in candidates:
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    found = shutil.which(name)
    if found:
        return found
    raise RuntimeError(f"{name} not found ({', '.join(candidates)}): {INSTALL_HINT}")


@dataclass
class PageLoad:
    """What happened while a page loaded: its URL, console messages and requested URLs."""

    url: str
    console: list[dict[str, Any]] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    @property
    def errors(self) -> list[dict[str, Any]]:
        """Console messages of level SEVERE (errors, CSP violations, uncaught exceptions)."""
        return [m for m in self.console if m.get("level") == "SEVERE"]

    @property
    def foreign_requests(self) -> list[str]:
        """Requests for anything other than the page itself (``data:`` URLs are not requests)."""
        return [u for u in self.requests if u != self.url and not u.startswith("data:")]


class Browser:
    """One headless Chromium session (start once per test module: it takes about two seconds)."""

    def __init__(self, width: int = 1366, height: int = 900) -> None:
        try:
            from selenium import webdriver
            from selenium.webdriver.chrome.service import Service
        except ImportError as exc:  # pragma: no cover - the test extra installs selenium
            raise RuntimeError("selenium is missing: pip install '.[test]'") from exc
        options = webdriver.ChromeOptions()
        options.binary_location = _find(CHROMIUM_CANDIDATES, "chromium")
        for arg in (
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
            "--lang=en-US",
            f"--window-size={width},{height}",
        ):
            options.add_argument(arg)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
        os.environ.setdefault("SE_OFFLINE", "true")  # selenium-manager must never try to download a driver
        self.driver = webdriver.Chrome(options=options, service=Service(_find(DRIVER_CANDIDATES, "chromedriver")))
        self.driver.set_page_load_timeout(60)

    def open(self, path: Path) -> PageLoad:
        """Load ``path`` (a local file) and return its console messages and requests so far."""
        self.driver.get_log("browser")  # drop messages of earlier pages
        self.driver.get_log("performance")
        url = path.resolve().as_uri()
        self.driver.get(url)
        load = PageLoad(url=url)
        self.collect(load)
        return load

    def collect(self, load: PageLoad) -> PageLoad:
        """Add the console messages and requests logged since the last call to ``load``."""
        load.console += self.driver.get_log("browser")
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message.get("method") == "Network.requestWillBeSent":
                load.requests.append(message["params"]["request"]["url"])
        return load

    def js(self, script: str, *args: Any) -> Any:
        """Run ``script`` in the page (``return ...`` gives a value)."""
        return self.driver.execute_script(script, *args)

    def screenshot(self, path: Path, *, full_page: bool = False) -> Path:
        """Save a PNG of the viewport, or of the whole page (``full_page``)."""
        if full_page:
            width = self.js("return document.documentElement.scrollWidth")
            height = self.js("return document.documentElement.scrollHeight")
            self.driver.execute_cdp_cmd(
                "Emulation.setDeviceMetricsOverride",
                {"width": width, "height": min(height, 16000), "deviceScaleFactor": 1, "mobile": False},
            )
            try:
                data = self.driver.execute_cdp_cmd(
                    "Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True}
                )
            finally:
                self.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
            import base64

            path.write_bytes(base64.b64decode(data["data"]))
        else:
            self.driver.save_screenshot(str(path))
        return path

    def quit(self) -> None:
        self.driver.quit()


def start_browser() -> Browser:
    """A started :class:`Browser`, or the calling test fails (never skips) saying why it cannot start."""
    import pytest

    try:
        return Browser()
    except Exception as exc:  # a missing browser must fail loudly, never skip
        pytest.fail(f"cannot start headless Chromium: {exc}")


@contextmanager
def browser_session() -> Iterator[Browser]:
    """``with browser_session() as browser:`` one :class:`Browser` for a block (see :func:`start_browser`)."""
    session = start_browser()
    try:
        yield session
    finally:
        session.quit()


def browser_fixture() -> Any:
    """A module-scoped pytest fixture of one :class:`Browser` (``browser = browser_fixture()`` in a test
    module); a missing browser fails the tests loudly, never skips them."""
    import pytest

    @pytest.fixture(scope="module")
    def browser() -> Iterator[Browser]:
        with browser_session() as session:
            yield session

    return browser
