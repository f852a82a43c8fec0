// Geometry read from graphviz's attributes (static/js/svg_geometry.js): what the page uses instead of
// asking the browser's layout in large drawings.
import assert from "node:assert/strict";
import { test } from "node:test";

import { numbers, pathGeometry, shapeBox } from "../../static/js/svg_geometry.js";

const el = (localName, attrs, text = "") => ({ localName, textContent: text, getAttribute: (k) => attrs[k] ?? null });

test("a straight edge's middle is halfway along it, and its ends are its first and last points", () => {
  // graphviz writes a straight edge as one cubic piece with its control points on the line
  const geo = pathGeometry("M54.65,-287.7C54.65,-279.98 54.65,-270.71 54.65,-262.11");
  assert.ok(Math.abs(geo.mid.x - 54.65) < 1e-9);
  assert.ok(Math.abs(geo.mid.y - (-287.7 - 262.11) / 2) < 0.2, String(geo.mid.y));
  assert.deepEqual(geo.start, { x: 54.65, y: -287.7 });
  assert.ok(Math.abs(geo.end.y + 262.11) < 1e-9);
});

test("the middle of a path of two pieces of unequal length is found by length, not by piece", () => {
  // 0 → 30 along x, then 30 → 40: the middle is at x = 20, in the first piece
  const geo = pathGeometry("M0,0C10,0 20,0 30,0 C33,0 37,0 40,0");
  assert.ok(Math.abs(geo.mid.x - 20) < 0.5, String(geo.mid.x));
  assert.equal(geo.mid.y, 0);
});

test("what is not a path of cubic pieces has no geometry (the page asks the browser instead)", () => {
  assert.equal(pathGeometry(""), null);
  assert.equal(pathGeometry("M0,0 L10,10"), null);
});

test("a node's box covers its outline: ellipse, polygon and path alike; its text does not widen it", () => {
  const ellipse = { children: [el("title", {}), el("ellipse", { cx: "10", cy: "-20", rx: "5", ry: "3" }),
    el("text", { x: "10", y: "-18", "font-size": "14" }, "a long label that overflows")] };
  assert.deepEqual(shapeBox(ellipse), { x: 5, y: -23, width: 10, height: 6 });
  const polygon = { children: [el("polygon", { points: "0,0 0,-36 54,-36 54,0 0,0" })] };
  assert.deepEqual(shapeBox(polygon), { x: 0, y: -36, width: 54, height: 36 });
  const rounded = { children: [el("path", { d: "M12,-40C12,-40 60,-40 60,-40C66,-40 72,-34 72,-28" })] };
  assert.deepEqual(shapeBox(rounded), { x: 12, y: -40, width: 60, height: 12 });
  assert.equal(shapeBox({ children: [el("text", { x: "0", y: "0" }, "x")] }), null);
});

test("an edge's box takes in its label when asked", () => {
  const edge = { children: [el("path", { d: "M0,0C0,10 0,20 0,30" }),
    el("text", { x: "20", y: "15", "font-size": "10", "text-anchor": "middle" }, "[4, 4]")] };
  assert.deepEqual(shapeBox(edge), { x: 0, y: 0, width: 0, height: 30 });
  const b = shapeBox(edge, true);
  assert.ok(b.x === 0 && b.width > 20 && b.y === 0 && b.height === 30, JSON.stringify(b));
});

test("numbers read from an attribute are the ones Number() reads", () => {
  const NUMBER = /-?\d*\.?\d+(?:e[-+]?\d+)?/gi;
  const texts = ["M54.65,-287.7C54.65,-279.98 54.65,-270.71 54.65,-262.11", "12.5,-8 12.5,-22 26.5,-22", "-.5,.25 3 -0",
    "1e3,-2.5E-2 7", "0.1234567890123456789,12345678901234567", "M-4-3L.5.5", "", "- . , abc"];
  for (const text of texts) {
    assert.deepEqual(numbers(text), (text.match(NUMBER) || []).map(Number), text);
  }
});
