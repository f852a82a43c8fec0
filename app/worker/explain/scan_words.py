"""How the page writes the words of the explanations of prod, cumsum and cumprod (``others``,
``cumsum_back``, ``cumprod_back``): the methods the explanation walk (``algebra.Walk``) takes from this
class."""

from __future__ import annotations

from .text import Text, wrap


class ScanWords:
    """The walk's rules for the words of running products and sums."""

    def _others(self, x):
        x = self.term(x)
        dim = self.ctx.params.get("dim")
        inner = wrap(x, 5)
        if dim is None:
            text = Text(f"the product of the other elements of {inner.en}, at each element",
                        f"{inner.zh} 中其余元素之积（逐个元素）")
        else:
            text = Text(f"the product of the other elements of {inner.en} along dim {dim}, at each element",
                        f"{inner.zh} 沿第 {dim} 维其余元素之积（逐个元素）")
        return self._record("others", [x], text, 0, {"axis": dim})

    def _cumsum_back(self, x):
        x = self.term(x)
        dim = self.ctx.params["dim"]
        inner = wrap(x, 5)
        text = Text(f"{inner.en} summed from each position to the end along dim {dim}",
                    f"{inner.zh} 沿第 {dim} 维从每个位置加到末尾")
        return self._record("cumsum_back", [x], text, 0, {"axis": dim})

    def _cumprod_back(self, g, x):
        g, x = self.term(g), self.term(x)
        dim = self.ctx.params["dim"]
        gs, xs = wrap(g, 5), wrap(x, 5)
        text = Text(f"Σ over j ≥ i of {gs.en}ⱼ · (the product of {xs.en}ₘ for m ≤ j, m ≠ i), along dim {dim}",
                    f"沿第 {dim} 维，对 j ≥ i 求和 {gs.zh}ⱼ ·（m ≤ j 且 m ≠ i 的 {xs.zh}ₘ 之积）")
        return self._record("cumprod_back", [g, x], text, 0, {"axis": dim})
