"""gradviz's autograd engine: ``import engine as torch`` runs the supported subset of PyTorch.

NumPy arrays underneath; every op comes from one table (``engine.ops.table.OPS``), and its public
function is published next to its entry (``engine.ops.api`` collects them); the backward walk
lives in ``engine.autograd``; ``engine.trace`` records what the page shows.
"""

import numpy as _np

from . import autograd, cuda, func, grad_mode, linalg, nn, optim, trace, utils  # noqa: F401
from .device import device  # noqa: F401
from .dtypes import (  # noqa: F401
    bool_ as bool,  # noqa: A004
)
from .dtypes import (  # noqa: F401
    double,
    dtype,
    float16,
    float32,
    float64,
    get_default_dtype,
    half,
    int32,
    int64,
    long,
    set_default_dtype,
    uint8,
)
from .dtypes import float_ as float  # noqa: F401, A004
from .dtypes import int_ as int  # noqa: F401, A004
from .factory import (  # noqa: F401
    arange,
    as_tensor,
    bernoulli,
    empty,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    manual_seed,
    normal,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randn,
    randn_like,
    randperm,
    seed,
    tensor,
    zeros,
    zeros_like,
)
from .generator import Generator, default_generator, get_rng_state, initial_seed, set_rng_state  # noqa: F401
from .grad_mode import (  # noqa: F401
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .legacy_tensors import (  # noqa: F401
    BoolTensor,
    ByteTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
)
from .ops.api import *  # noqa: F403  (torch's op functions: add, exp, matmul, max, ...)
from .printing_options import set_printoptions  # noqa: F401
from .tensor import Size, Tensor, is_tensor  # noqa: F401

_np.seterr(all="ignore")  # like torch: inf/nan results, no warnings

__version__ = "2.13.0+gradviz"
