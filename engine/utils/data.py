"""``torch.utils.data``: ``TensorDataset`` and a ``DataLoader`` that batches it (``batch_size``,
``shuffle``, ``drop_last``), as the training loops of courses use them.

Loading happens in the program's own process (``num_workers`` is accepted and ignored). Each pass
and each shuffle draws from the generators as PyTorch's loader does, so after the same
``torch.manual_seed`` the batches come in PyTorch's order.
"""

from __future__ import annotations

import numpy as np

from .. import arguments as A
from .. import generator as G
from ..errors import not_supported
from ..naming import torch_path
from ..tensor import Tensor

__all__ = ["DataLoader", "Dataset", "TensorDataset", "random_split"]


@torch_path("torch.utils.data.dataset")
class Dataset:
    """The base class of datasets (gradviz's loaders take a ``TensorDataset``, a list or a tensor)."""


@torch_path("torch.utils.data.dataset")
class TensorDataset(Dataset):
    """Tensors of the same length along their first dim; item ``i`` is the tuple of their rows ``i``."""

    def __init__(self, *tensors):
        tensors = A.tensors(list(tensors), "TensorDataset", "tensors")
        if any(t.ndim == 0 for t in tensors):
            raise IndexError("tuple index out of range")
        if tensors and any(t.shape[0] != tensors[0].shape[0] for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].shape[0] if self.tensors else 0


def _length(dataset) -> int:
    if isinstance(dataset, (TensorDataset, Tensor)):
        return len(dataset)
    if type(dataset) in (list, tuple):
        return len(dataset)
    raise not_supported(f"a DataLoader over a {A.type_name(dataset)} (use a TensorDataset, a tensor or a "
                        "list)")


def _collate(items: list):
    """Samples into a batch: tensors stacked, tuples component by component, numbers as a tensor."""
    from ..factory import tensor
    from ..ops.combine import stack

    first = items[0]
    if isinstance(first, Tensor):
        return stack(items)
    if type(first) in (tuple, list):
        return [_collate([it[k] for it in items]) for k in range(len(first))]
    if A.is_number(first):
        return tensor(items)
    raise not_supported(f"batching items of type {A.type_name(first)}")


@torch_path("torch.utils.data.dataloader")
class DataLoader:
    """Batches of ``dataset``: ``batch_size`` items each (the last one shorter unless ``drop_last``),
    in order or, with ``shuffle``, in a new random order each epoch."""

    def __init__(self, dataset, batch_size: int | None = 1, shuffle: bool = False, sampler=None,
                 batch_sampler=None, num_workers: int = 0, collate_fn=None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0, worker_init_fn=None, generator=None, **kwargs):
        _length(dataset)
        if batch_size is not None:
            batch_size = A.integer(batch_size, "DataLoader", "batch_size")
            if batch_size <= 0:
                raise ValueError("batch_size should be a positive integer value, but got "
                                 f"batch_size={batch_size}")
        if sampler is not None or batch_sampler is not None:
            raise not_supported("DataLoader samplers")
        self.dataset = dataset
        self.batch_size = batch_size
        self.shuffle = False if shuffle is None else A.flag(shuffle, "DataLoader", "shuffle", strict=False)
        self.drop_last = A.flag(drop_last, "DataLoader", "drop_last", strict=False)
        self.num_workers = A.integer(num_workers, "DataLoader", "num_workers")
        self.collate_fn = collate_fn
        self.generator = None if generator is None else G.pick(generator, "DataLoader")

    def __len__(self) -> int:
        n = _length(self.dataset)
        if self.batch_size is None:
            return n
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    def __iter__(self):
        n = _length(self.dataset)
        # PyTorch's draws, in its order: each pass first draws its workers' base seed, then a shuffle
        # draws a seed for a generator of its own (unless the loader was given one) and a randperm.
        gen = G.pick(self.generator, "DataLoader")
        G.random_full(gen, 1, np.dtype(np.int64))
        if self.shuffle:
            if self.generator is None:
                gen = G.Generator().manual_seed(int(G.random_full(gen, 1, np.dtype(np.int64))[0]))
            order = G.randperm(gen, n).tolist()
        else:
            order = list(range(n))
        if self.batch_size is None:
            for i in order:
                yield self.dataset[i]
            return
        size = self.batch_size
        stop = n - n % size if self.drop_last else n
        for start in range(0, stop, size):
            items = [self.dataset[i] for i in order[start:start + size]]
            yield self.collate_fn(items) if self.collate_fn is not None else _collate(items)


def random_split(dataset, lengths, generator=None) -> list:
    """``dataset`` split into random parts of the given lengths (a list of ``Subset``-like lists)."""
    n = _length(dataset)
    lengths = list(A.ints(lengths, "random_split", "lengths", 2))
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    order = G.randperm(G.pick(generator, "random_split"), n).tolist()
    out, start = [], 0
    for k in lengths:
        out.append([dataset[i] for i in order[start:start + k]])
        start += k
    return out
