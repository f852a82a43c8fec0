"""Oracle cases (the format of oracle_cases.py) for the ops courses read and reorder tensors with:
index_select, gather, scatter, diag, topk, sort, split / chunk / unbind, prod, cumsum, cumprod."""

from __future__ import annotations

from oracle_cases import Case, arr, inputs, ints


def with_zeros(*shape, at):
    """An input builder: ``arr(*shape)`` with zeros at the flat positions ``at`` (prod's special cases)."""
    def build(rng):
        x = rng.uniform(-2.0, 2.0, shape)
        x.reshape(-1)[list(at)] = 0.0
        return x

    return build


CASES: list[Case] = [
    Case("index_select", lambda t, a, i: t.index_select(a, 0, i), inputs(arr(4, 3), ints([2, 0, 2])), "rows"),
    Case("index_select", lambda t, a, i: a.index_select(1, i), inputs(arr(3, 4), ints([3, 1])), "columns"),
    Case("index_select", lambda t, a, i: a.index_select(-1, i), inputs(arr(5), ints([4, 4, 0])), "vector"),
    Case("gather", lambda t, a, i: t.gather(a, 1, i), inputs(arr(3, 4), ints([[0], [3], [1]])), "picks"),
    Case("gather", lambda t, a, i: a.gather(0, i), inputs(arr(3, 4), ints([[0, 2, 2, 1], [0, 0, 1, 2]])),
         "rows-repeat"),
    Case("gather", lambda t, a, i: a.gather(2, i), inputs(arr(2, 3, 4), ints([[[1, 0]] * 3] * 2)), "batched"),
    Case("scatter", lambda t, a, b, i: a.scatter(1, i, b),
         inputs(arr(3, 4), arr(3, 1), ints([[0], [3], [1]])), "src"),
    Case("scatter", lambda t, a, b, i: t.scatter(a, 0, i, b),
         inputs(arr(3, 4), arr(1, 4), ints([[2, 0, 1, 2]])), "rows"),
    Case("scatter_value", lambda t, a, i: a.scatter(1, i, 0.5),
         inputs(arr(3, 4), ints([[0], [3], [1]])), "value"),
    Case("scatter_value", lambda t, a, i: (a * 1).scatter_(1, i, value=2.0),
         inputs(arr(3, 4), ints([[1, 2]] * 3)), "in-place"),
    Case("scatter", lambda t, a, b, i: (a * 1).scatter_(1, i, b),
         inputs(arr(3, 4), arr(3, 2), ints([[1, 2]] * 3)), "in-place"),
    Case("diag_embed", lambda t, a: t.diag(a), inputs(arr(3)), "vector"),
    Case("diag_embed", lambda t, a: a.diag(1), inputs(arr(3)), "above"),
    Case("diag_embed", lambda t, a: t.diag(a, -2), inputs(arr(2)), "below"),
    Case("diagonal", lambda t, a: t.diag(a), inputs(arr(3, 4)), "matrix"),
    Case("diagonal", lambda t, a: a.diag(-1), inputs(arr(3, 4)), "below"),
    Case("diagonal", lambda t, a: a.diag(2), inputs(arr(4, 4)), "above"),
    Case("topk", lambda t, a: t.topk(a, 2).values, inputs(arr(5)), "vector"),
    Case("topk", lambda t, a: a.topk(2, dim=0, largest=False)[0], inputs(arr(3, 4)), "smallest"),
    Case("topk", lambda t, a: a.topk(3).values, inputs(arr(2, 3, 4)), "batched"),
    Case("sort", lambda t, a: t.sort(a).values, inputs(arr(5)), "vector"),
    Case("sort", lambda t, a: a.sort(dim=0, descending=True)[0], inputs(arr(3, 4)), "descending"),
    Case("split", lambda t, a: t.split(a, 2)[1], inputs(arr(5, 3)), "rows"),
    Case("split", lambda t, a: a.chunk(2, 1)[0], inputs(arr(3, 4)), "chunk"),
    Case("split_with_sizes", lambda t, a: a.split([1, 3], dim=1)[1], inputs(arr(3, 4)), "sizes"),
    Case("split_with_sizes", lambda t, a: t.split(a, [2, 1, 2])[2], inputs(arr(5)), "vector"),
    Case("split", lambda t, a: sum(p.sum() * (k + 1) for k, p in enumerate(a.split(2))), inputs(arr(5, 3)),
         "all-pieces"),
    Case("unbind", lambda t, a: t.unbind(a)[1], inputs(arr(3, 2)), "rows"),
    Case("unbind", lambda t, a: a.unbind(1)[0] * a.unbind(1)[2], inputs(arr(2, 3)), "columns"),
    Case("unbind", lambda t, a: list(a)[0] * 2 + list(a)[2], inputs(arr(3)), "iterated"),
    Case("prod", lambda t, a: a.prod(), inputs(arr(5, low=0.5, high=1.5)), "vector"),
    Case("prod", lambda t, a: t.prod(a), inputs(arr(3, 4, low=0.5, high=1.5)), "matrix"),
    Case("prod", lambda t, a: a.prod(), inputs(with_zeros(5, at=[2])), "one-zero", second_order=False),
    Case("prod", lambda t, a: a.prod(), inputs(with_zeros(5, at=[1, 3])), "two-zeros", second_order=False),
    Case("prod_dim", lambda t, a: a.prod(1), inputs(arr(3, 4, low=0.5, high=1.5)), "matrix"),
    Case("prod_dim", lambda t, a: t.prod(a, 0, keepdim=True), inputs(arr(3, 4)), "keepdim"),
    Case("prod_dim", lambda t, a: a.prod(dim=-1), inputs(with_zeros(3, 4, at=[1, 6, 7])), "zeros",
         second_order=False),
    Case("cumsum", lambda t, a: a.cumsum(0), inputs(arr(5)), "vector"),
    Case("cumsum", lambda t, a: t.cumsum(a, dim=1), inputs(arr(3, 4)), "matrix"),
    Case("cumsum", lambda t, a: a.cumsum(-1), inputs(arr(2, 3, 4)), "batched"),
    Case("cumprod", lambda t, a: a.cumprod(0), inputs(arr(5, low=0.5, high=1.5)), "vector"),
    Case("cumprod", lambda t, a: t.cumprod(a, dim=1), inputs(arr(3, 4)), "matrix"),
    Case("cumprod", lambda t, a: a.cumprod(-1), inputs(with_zeros(2, 4, at=[1, 5, 6])), "zeros",
         second_order=False),
]
