"""``torch.nn``: Module, Parameter, layers and losses; ``functional`` and ``init`` as submodules."""

from . import functional, init, utils  # noqa: F401
from .layers import (  # noqa: F401
    ELU,
    GELU,
    Dropout,
    Flatten,
    Identity,
    LeakyReLU,
    Linear,
    LogSoftmax,
    ModuleList,
    ReLU,
    Sequential,
    Sigmoid,
    SiLU,
    Softmax,
    Softplus,
    Tanh,
)
from .loss_modules import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, MSELoss, NLLLoss  # noqa: F401
from .module import Module  # noqa: F401
from .parameter import Parameter  # noqa: F401
from .tracing import name_module  # noqa: F401
