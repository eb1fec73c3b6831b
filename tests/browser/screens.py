"""Screenshots of the site's pages and the geometric check that their text is readable.

``assert_no_overlap_or_clip(driver)`` measures, in one script run in the page, every piece of
text under ``root`` (each HTML text node's line boxes, each SVG ``text`` element's box, each
form control) and fails, naming the text, when:

- a text lies outside its block container (it spills out of its cell, box or chart), or
  outside an ancestor that hides its overflow (a chart's ``svg`` clips what is drawn beyond
  its view box);
- a text reaches beyond the window's width, or the page itself scrolls sideways, unless the
  text sits inside a box that scrolls on its own (a wide table's ``.table-scroll``);
- two texts intersect, or a text covers a chart's point (``circle``);
- a radio button or check box is not on the line of its label's text.

``show(driver, path, width)`` sizes the window to ``width`` and the page's height and saves
the screenshot as a PNG, so a person can look at what the check cannot judge.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

#: Pixels of tolerance: anti-aliasing and sub-pixel layout, never a visible overlap.
SLACK = 2

_MEASURE = r"""
const root = document.querySelector(arguments[0]);
const slack = arguments[1];
if (!root) { return {problems: ["no element matches " + arguments[0]], count: 0}; }
const SKIP = new Set(["SCRIPT", "STYLE", "TITLE", "DESC", "OPTION", "TEMPLATE", "NOSCRIPT"]);
const problems = [];
const boxes = [];
const viewport = document.documentElement.clientWidth;
const page = document.documentElement.scrollWidth;
if (page > viewport + 1) {
  problems.push(`the page scrolls sideways: ${page} px of content in a ${viewport} px window`);
}
function name(el, text) {
  const cls = el.getAttribute("class");
  const label = (text || el.textContent || el.value || "").trim().replace(/\s+/g, " ");
  return `${el.tagName.toLowerCase()}${cls ? "." + cls.trim().split(/\s+/).join(".") : ""}`
    + ` "${label.slice(0, 60)}"`;
}
function visible(el) {
  if (el.closest(".visually-hidden")) { return false; }
  return el.checkVisibility ? el.checkVisibility({visibilityProperty: true}) : true;
}
function inside(inner, outer) {
  return inner.left >= outer.left - slack && inner.right <= outer.right + slack
    && inner.top >= outer.top - slack && inner.bottom <= outer.bottom + slack;
}
function scrolls(style) {
  return style.overflowX === "auto" || style.overflowX === "scroll";
}
function blockOf(el) {
  let node = el;
  while (node && node !== document.documentElement) {
    const display = getComputedStyle(node).display;
    if (display !== "inline" && display !== "contents") { return node; }
    node = node.parentElement;
  }
  return document.documentElement;
}
// Where a text's box must stay: its block container, every ancestor that clips, and the
// window unless a box on the way scrolls on its own.
function checkPlace(el, rect, label, container) {
  const own = container || blockOf(el);
  const ownStyle = getComputedStyle(own);
  if (!scrolls(ownStyle) && !inside(rect, own.getBoundingClientRect())) {
    problems.push(`${label} spills out of its ${name(own, " ").split(" ")[0]}`);
  }
  let scroller = null;
  for (let node = el.parentElement; node && node !== document.body; node = node.parentElement) {
    const style = getComputedStyle(node);
    if (scrolls(style)) {
      scroller = node;
      // A wide table's cells scroll; its caption and anything else must stay in view.
      if (!el.closest("td, th") && !inside(rect, node.getBoundingClientRect())) {
        problems.push(`${label} is cut off by the scrolling ${name(node, " ").split(" ")[0]}`);
      }
      break;
    }
    if (style.overflowX !== "visible" || style.overflowY !== "visible") {
      if (!inside(rect, node.getBoundingClientRect())) {
        problems.push(`${label} is clipped by ${name(node, " ").split(" ")[0]}`);
        return;
      }
    }
  }
  if (!scroller && (rect.left < -slack || rect.right > viewport + slack)) {
    problems.push(`${label} reaches beyond the ${viewport} px window`
      + ` (${Math.round(rect.left)} to ${Math.round(rect.right)})`);
  }
}
function add(rect, label, key, kind) {
  if (rect.width < 1 || rect.height < 1) { return; }
  boxes.push({left: rect.left, right: rect.right, top: rect.top, bottom: rect.bottom,
              label: label, key: key, kind: kind});
}
let key = 0;
const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
const range = document.createRange();
for (let node = walker.nextNode(); node; node = walker.nextNode()) {
  const el = node.parentElement;
  if (!el || !node.textContent.trim() || SKIP.has(el.tagName.toUpperCase())) { continue; }
  if (el instanceof SVGElement) { continue; }
  if (!visible(el)) { continue; }
  key += 1;
  range.selectNodeContents(node);
  const label = name(el, node.textContent);
  for (const rect of range.getClientRects()) {
    if (rect.width < 1 || rect.height < 1) { continue; }
    checkPlace(el, rect, label, null);
    add(rect, label, key, "text");
  }
}
for (const el of root.querySelectorAll("svg text")) {
  if (!el.textContent.trim() || !visible(el)) { continue; }
  key += 1;
  const rect = el.getBoundingClientRect();
  const svg = el.ownerSVGElement;
  let outer = svg;
  while (outer && outer.ownerSVGElement) { outer = outer.ownerSVGElement; }
  const label = name(el);
  if (!inside(rect, outer.getBoundingClientRect())) {
    problems.push(`${label} is drawn outside its chart`);
  }
  checkPlace(outer, rect, label, outer.parentElement ? blockOf(outer.parentElement) : null);
  add(rect, label, key, "text");
}
for (const el of root.querySelectorAll("svg circle")) {
  if (!visible(el)) { continue; }
  key += 1;
  add(el.getBoundingClientRect(), name(el, el.getAttribute("data-label") || "point"), key, "mark");
}
for (const el of root.querySelectorAll("input, select, textarea")) {
  if (el.type === "hidden" || !visible(el)) { continue; }
  key += 1;
  const rect = el.getBoundingClientRect();
  const label = name(el, el.name || el.id);
  checkPlace(el, rect, label, null);
  add(rect, label, key, "control");
}
boxes.sort((a, b) => a.top - b.top);
for (let i = 0; i < boxes.length; i += 1) {
  const a = boxes[i];
  for (let j = i + 1; j < boxes.length && boxes[j].top < a.bottom - slack; j += 1) {
    const b = boxes[j];
    if (a.key === b.key || (a.kind === "mark" && b.kind === "mark")) { continue; }
    const wide = Math.min(a.right, b.right) - Math.max(a.left, b.left);
    const tall = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
    if (wide > slack && tall > slack) {
      problems.push(`${a.label} overlaps ${b.label}`);
    }
  }
}
for (const el of root.querySelectorAll("input[type=radio], input[type=checkbox]")) {
  if (!visible(el) || !el.labels || !el.labels.length) { continue; }
  const box = el.getBoundingClientRect();
  const middle = (box.top + box.bottom) / 2;
  const text = el.labels[0];
  range.selectNodeContents(text);
  const lines = Array.from(range.getClientRects()).filter((r) => r.width >= 1);
  const near = lines.some((r) => r.top - slack <= middle && middle <= r.bottom + slack
    && Math.abs((r.left + r.right) / 2 - (box.left + box.right) / 2) < 400);
  if (!near) {
    problems.push(`${name(el, el.value)} is not on the line of its label ${name(text)}`);
  }
}
return {problems: Array.from(new Set(problems)), count: boxes.length};
"""


def measure(driver: Any, root: str = "main") -> tuple[list[str], int]:
    """The layout problems of the page's text under ``root`` and how many boxes were read."""
    found = driver.execute_script(_MEASURE, root, SLACK)
    return list(found["problems"]), int(found["count"])


def assert_no_overlap_or_clip(driver: Any, root: str = "main", where: str = "") -> None:
    problems, count = measure(driver, root)
    assert count > 0, f"{where}: no text under {root}"
    assert not problems, f"{where}:\n" + "\n".join(problems[:40])


def show(driver: Any, path: Path, width: int) -> None:
    """Size the window to ``width`` and the whole page's height; save the PNG at ``path``."""
    emulate(driver, width, 900)
    height = driver.execute_script("return document.documentElement.scrollHeight")
    emulate(driver, width, min(int(height), 8000))
    driver.save_screenshot(str(path))


def emulate(driver: Any, width: int, height: int = 900) -> None:
    """A window whose page is exactly ``width`` CSS pixels wide (a phone's 390 px has no
    scroll bar taking 15 px of it)."""
    driver.execute_cdp_cmd("Emulation.setScrollbarsHidden", {"hidden": True})
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
    )


def page_text(driver: Any, css: str = "main") -> str:
    from selenium.webdriver.common.by import By

    return str(driver.find_element(By.CSS_SELECTOR, css).text)


def sign_in(driver: Any, base: str, user: Any) -> None:
    """Open the site signed in as ``user`` (a session made by Django's test client)."""
    from django.conf import settings
    from django.test import Client

    client = Client()
    client.force_login(user)
    from django.urls import reverse

    driver.get(base + reverse("login"))
    driver.add_cookie(
        {
            "name": settings.SESSION_COOKIE_NAME,
            "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
            "path": "/",
        }
    )


def check_page(driver: Any, base: str, url: str, shots: Path, name: str) -> dict[int, str]:
    """Open ``url`` at 1400 px and at 390 px, save both screenshots, check the text's
    layout at both; the text of ``main`` at each width."""
    texts = {}
    driver.get(base + url)
    for width in WIDTHS:
        show(driver, shots / f"{name}-{width}.png", width)
        assert_no_overlap_or_clip(driver, where=f"{name} at {width} px")
        texts[width] = page_text(driver)
    return texts


WIDTHS = (1400, 390)
