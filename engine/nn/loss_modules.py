"""Loss modules: thin wrappers over ``nn.functional`` that remember their options."""

from __future__ import annotations

from ..naming import torch_path
from ..ops.losses import reduction_mode
from . import functional as F
from .module import Module


@torch_path("torch.nn.modules.loss")
class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__()
        self.reduction = reduction_mode(size_average, reduce, reduction)


@torch_path("torch.nn.modules.loss")
class _WeightedLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


@torch_path("torch.nn.modules.loss")
class MSELoss(_Loss):
    """Mean squared error."""

    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)


@torch_path("torch.nn.modules.loss")
class L1Loss(_Loss):
    """Mean absolute error."""

    def forward(self, input, target):
        return F.l1_loss(input, target, reduction=self.reduction)


@torch_path("torch.nn.modules.loss")
class NLLLoss(_WeightedLoss):
    """Negative log-likelihood of class indices (input: log-probabilities)."""

    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


@torch_path("torch.nn.modules.loss")
class CrossEntropyLoss(_WeightedLoss):
    """log_softmax + nll_loss on raw scores (logits)."""

    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean", label_smoothing: float = 0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


@torch_path("torch.nn.modules.loss")
class BCELoss(_WeightedLoss):
    """Binary cross-entropy on probabilities."""

    def forward(self, input, target):
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


@torch_path("torch.nn.modules.loss")
class BCEWithLogitsLoss(_Loss):
    """Binary cross-entropy on logits (sigmoid folded in, numerically stable)."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction: str = "mean", pos_weight=None):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.weight, reduction=self.reduction,
                                                  pos_weight=self.pos_weight)
