"""Screenshot of an HTML page in headless Chromium (the system's, driven by Playwright), offline.

    python3 tools/html_screenshot.py docs/examples/gpt2.h200.html docs/examples/gpt2.h200.html.png

Loads the page from a file:// URL with the network cut off, waits for it to load, prints each
image's natural size and any console error, and writes a full-page PNG (never over a file).
Chromium: FLOORCALC_CHROMIUM, default /usr/bin/chromium (apt-get install chromium).
"""

import os
import sys
from pathlib import Path


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    page_path, out = Path(argv[0]).resolve(), Path(argv[1])
    if out.exists():
        print(f"html_screenshot: {out} exists", file=sys.stderr)
        return 1
    from playwright.sync_api import sync_playwright

    chromium = os.environ.get("FLOORCALC_CHROMIUM", "/usr/bin/chromium")
    errors = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_context(viewport={"width": 1400, "height": 900}, offline=True).new_page()
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(page_path.as_uri(), wait_until="load")
            for img in page.evaluate("Array.from(document.images).map(i => [i.alt, i.naturalWidth, i.naturalHeight])"):
                print("image", *img)
            page.screenshot(path=str(out), full_page=True)
        finally:
            browser.close()
    for e in errors:
        print("console error:", e)
    print(f"wrote {out}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
