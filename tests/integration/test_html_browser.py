"""The HTML report in a real headless browser (issue 14, item 6): Chromium from the system's
package manager, driven by Playwright, loads the page from a file:// URL with the network cut
off, and the figures and tables must render: every image decoded with a non-zero natural
size, the table rows there, no console error, no request leaving the page. A screenshot is
saved (under FLOORCALC_SCREENSHOT_DIR when set, else the test's folder).

Needs the ``playwright`` Python package and a Chromium binary (FLOORCALC_CHROMIUM, default
/usr/bin/chromium: ``apt-get install chromium``; .ci/run installs both when it can). Without
them the test is skipped, and the reason names what is missing.
"""

import os
import shutil
from pathlib import Path

import pytest

from floorcalc.cli import main

ROOT = Path(__file__).resolve().parents[2]
TRACE = ROOT / "tests" / "data" / "h200_llama_decode_eager.trace.json.gz"
CHROMIUM = os.environ.get("FLOORCALC_CHROMIUM", "/usr/bin/chromium")


def _browser_or_skip():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("HEADLESS BROWSER TEST SKIPPED: the playwright Python package is not installed "
                    "(pip install playwright)")
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)) and not shutil.which(CHROMIUM):
        pytest.skip(f"HEADLESS BROWSER TEST SKIPPED: no Chromium at {CHROMIUM} "
                    "(apt-get install chromium, or set FLOORCALC_CHROMIUM)")
    pytest.importorskip("matplotlib", reason="HEADLESS BROWSER TEST SKIPPED: matplotlib draws the page's figures")
    return sync_playwright


def test_the_html_report_renders_in_headless_chromium(tmp_path):
    sync_playwright = _browser_or_skip()
    # GIVEN the HTML report of a committed H200 trace
    page_path = tmp_path / "report.html"
    assert main(["analyze", str(TRACE), "-o", str(page_path)]) == 0
    shots = Path(os.environ.get("FLOORCALC_SCREENSHOT_DIR") or tmp_path)
    shot = shots / "report.html.png"
    errors, requests = [], []
    # WHEN Chromium loads it from a file:// URL, offline
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            context = browser.new_context(viewport={"width": 1500, "height": 1000}, offline=True)
            page = context.new_page()
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("request", lambda r: requests.append(r.url))
            page.goto(page_path.as_uri(), wait_until="load")
            images = page.evaluate("Array.from(document.images).map(i => ({alt: i.alt, complete: i.complete,"
                                   " w: i.naturalWidth, h: i.naturalHeight}))")
            rows = page.evaluate("Object.fromEntries(Array.from(document.querySelectorAll('table[class]'))"
                                 ".map(t => [t.className, t.tBodies[0].rows.length]))")
            headings = page.evaluate("Array.from(document.querySelectorAll('h2')).map(h => h.textContent)")
            shown = page.evaluate("Array.from(document.images).every(i => i.getBoundingClientRect().width > 100)")
            page.screenshot(path=str(shot), full_page=True)
        finally:
            browser.close()
    # THEN both figures decoded, every table has its rows, nothing failed and nothing was fetched
    assert [i["alt"] for i in images] == ["timeline of one pass", "roofline"]
    assert all(i["complete"] and i["w"] > 500 and i["h"] > 200 for i in images), images
    assert shown
    assert rows["summary"] >= 10 and rows["decomposition"] >= 6 and rows["ops"] >= 20 and rows["kernels"] == 15
    assert rows["ceilings"] >= 3 and rows["provenance"] >= 3
    assert "Where the wall time goes (per pass)" in headings and "Roofline" in headings
    assert errors == []
    assert [u for u in requests if not u.startswith(("file:", "data:"))] == []
    assert shot.stat().st_size > 50_000 and shot.read_bytes()[:4] == b"\x89PNG"
    print(f"screenshot: {shot}")
