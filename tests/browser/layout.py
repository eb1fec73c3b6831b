"""Layout checks in the real browser: no text overlaps other text, none is clipped.

``assert_no_overlap_or_clip(driver, selector_root="main")`` collects, in the page, the boxes
of every piece of text shown under the root: each text node's line boxes (a DOM ``Range``'s
client rects) and each SVG ``<text>``'s box. It fails, naming the texts, when

- two pieces of text intersect (by more than ``tolerance`` pixels each way; text nodes
  never overlap in normal flow, so an intersection is text drawn over text);
- a piece of text sticks out of its container: the nearest ancestor that is a block, a
  table cell, a flex or grid item (or the ``<svg>`` of an SVG text), or an ancestor that
  clips its overflow (``overflow: hidden`` or ``clip``), or the root itself, unless an
  ancestor in between scrolls (``overflow: auto`` or ``scroll``: the text is reached by
  scrolling that box, which must itself fit in the root);
- the page scrolls sideways (the document is wider than the window).

Hidden text (``display: none``, ``visibility: hidden``, zero-sized, ``<title>``/``<desc>``
of SVG, ``<noscript>`` with scripting on, closed ``<details>``) has no boxes and is skipped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: Collects the boxes in the page. Returns {"texts": [...], "clipped": [...],
#: "page": [scrollWidth, clientWidth]}.
_COLLECT = r"""
const root = document.querySelector(arguments[0]);
const tolerance = arguments[1];
if (!root) { return {missing: true}; }
const rootBox = root.getBoundingClientRect();
const texts = [];
const clipped = [];

function label(node) {
  const text = (node.textContent || "").replace(/\s+/g, " ").trim();
  return text.length > 60 ? text.slice(0, 57) + "…" : text;
}
function path(element) {
  const parts = [];
  for (let e = element; e && e !== root && parts.length < 4; e = e.parentElement) {
    let part = e.tagName.toLowerCase();
    if (e.id) { part += "#" + e.id; }
    else if (e.classList && e.classList.length) { part += "." + Array.from(e.classList).join("."); }
    parts.unshift(part);
  }
  return parts.join(" > ");
}
// Text hidden on purpose for screen readers (clip: rect(0 0 0 0), a 1 px box).
function hiddenByClip(element) {
  for (let e = element; e && e !== root.parentElement; e = e.parentElement) {
    const style = getComputedStyle(e);
    if (style.clip && style.clip !== "auto") { return true; }
    if (style.clipPath && style.clipPath !== "none") { return true; }
  }
  return false;
}
function box(r) { return {left: r.left, top: r.top, right: r.right, bottom: r.bottom}; }
function inside(inner, outer) {
  return inner.left >= outer.left - tolerance && inner.right <= outer.right + tolerance &&
    inner.top >= outer.top - tolerance && inner.bottom <= outer.bottom + tolerance;
}
function isContainer(element) {
  const style = getComputedStyle(element);
  const display = style.display;
  if (display === "contents") { return false; }
  if (!display.startsWith("inline") || display === "inline-block" || display === "inline-flex"
      || display === "inline-grid" || display === "inline-table") { return true; }
  return false;
}
// The boxes a piece of text must stay inside, innermost first: its container, the clipping
// ancestors, the root; an ancestor that scrolls ends the walk (its own box is checked).
function limits(element, isSvg) {
  const out = [];
  let container = null;
  for (let e = element; e; e = e.parentElement) {
    if (isSvg && e.tagName.toLowerCase() === "svg") { out.push(["svg", e]); container = e; }
    if (!container && !isSvg && isContainer(e)) { out.push(["container", e]); container = e; }
    if (e === root) { out.push(["root", e]); break; }
    if (e === element && !isSvg) { continue; }
    const style = getComputedStyle(e);
    const overflow = [style.overflowX, style.overflowY];
    if (overflow.some(o => o === "auto" || o === "scroll")) {
      out.push(["scroller", e]);
      break;
    }
    if (overflow.some(o => o === "hidden" || o === "clip")) { out.push(["clips", e]); }
  }
  return out;
}
function check(piece, element, isSvg) {
  for (const [kind, limit] of limits(element, isSvg)) {
    if (kind === "scroller") {
      const own = limit.getBoundingClientRect();
      if (!inside(box(own), box(rootBox))) {
        clipped.push({text: piece.text, where: piece.where,
                      limit: "scroll box " + path(limit) + " leaves the root"});
      }
      continue;
    }
    // A container's padding box: its client area (borders excluded).
    const r = limit.getBoundingClientRect();
    if (!inside(piece, box(r))) {
      clipped.push({text: piece.text, where: piece.where, limit: kind + " " + path(limit),
                    piece: [piece.left, piece.top, piece.right, piece.bottom],
                    box: [r.left, r.top, r.right, r.bottom]});
    }
  }
}
const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
const skip = new Set(["script", "style", "title", "desc", "noscript", "template", "option"]);
let index = 0;
for (let node = walker.nextNode(); node; node = walker.nextNode()) {
  if (!node.textContent.trim()) { continue; }
  const parent = node.parentElement;
  if (!parent || skip.has(parent.tagName.toLowerCase())) { continue; }
  if (parent.closest("title, desc, noscript, script, style, template, select")) { continue; }
  const isSvg = parent instanceof SVGElement;
  const style = getComputedStyle(parent);
  if (style.visibility !== "visible" || style.display === "none") { continue; }
  // Not drawn: inside a closed <details>, a display: none or content-visibility: hidden box.
  if (parent.checkVisibility && !parent.checkVisibility({visibilityProperty: true})) { continue; }
  if (hiddenByClip(parent)) { continue; }
  let rects;
  if (isSvg) {
    const textElement = parent.closest("text") || parent;
    const r = textElement.getBoundingClientRect();
    rects = r.width && r.height ? [r] : [];
  } else {
    const range = document.createRange();
    range.selectNodeContents(node);
    rects = Array.from(range.getClientRects()).filter(r => r.width > 0.5 && r.height > 0.5);
  }
  const text = label(node);
  const where = path(parent);
  for (const r of rects) {
    const piece = {id: index, text: text, where: where,
                   left: r.left, top: r.top, right: r.right, bottom: r.bottom};
    texts.push(piece);
    check(piece, parent, isSvg);
  }
  index += 1;
}
const page = [document.documentElement.scrollWidth, document.documentElement.clientWidth];
return {texts: texts, clipped: clipped, page: page};
"""


@dataclass(frozen=True)
class TextBox:
    id: int
    text: str
    where: str
    left: float
    top: float
    right: float
    bottom: float

    def overlap(self, other: TextBox) -> tuple[float, float]:
        width = min(self.right, other.right) - max(self.left, other.left)
        height = min(self.bottom, other.bottom) - max(self.top, other.top)
        return width, height


def text_boxes(driver: Any, selector_root: str = "main", tolerance: float = 1.0) -> dict[str, Any]:
    """The boxes of the shown text under the root, with what is clipped (see the module)."""
    found = driver.execute_script(_COLLECT, selector_root, tolerance)
    assert not found.get("missing"), f"no element matches {selector_root!r}"
    return found


def overlaps(boxes: list[TextBox], tolerance: float) -> list[tuple[TextBox, TextBox]]:
    """Pairs of different texts whose boxes intersect by more than ``tolerance`` both ways
    (sorted by left edge, so each box meets only the boxes that start before it ends)."""
    ordered = sorted(boxes, key=lambda b: b.left)
    out = []
    for i, first in enumerate(ordered):
        for second in ordered[i + 1 :]:
            if second.left >= first.right - tolerance:
                break
            if first.id == second.id:
                continue
            width, height = first.overlap(second)
            if width > tolerance and height > tolerance:
                out.append((first, second))
    return out


def assert_no_overlap_or_clip(
    driver: Any, selector_root: str = "main", *, tolerance: float = 1.0
) -> int:
    """Fail when text under ``selector_root`` overlaps other text, sticks out of its
    container, or the page scrolls sideways; returns how many text boxes were checked."""
    found = text_boxes(driver, selector_root, tolerance)
    scroll_width, client_width = found["page"]
    assert scroll_width <= client_width, (
        f"the page scrolls sideways: {scroll_width} > {client_width}"
    )
    clipped = found["clipped"]
    assert not clipped, "text outside its container:\n" + "\n".join(
        f"  {c['text']!r} ({c['where']}) outside {c['limit']}: {c.get('piece')} vs {c.get('box')}"
        for c in clipped[:20]
    )
    boxes = [TextBox(**piece) for piece in found["texts"]]
    pairs = overlaps(boxes, tolerance)
    assert not pairs, "overlapping text:\n" + "\n".join(
        f"  {a.text!r} ({a.where}) × {b.text!r} ({b.where})" for a, b in pairs[:20]
    )
    return len(boxes)
