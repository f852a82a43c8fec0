"""``torch.optim``: SGD, Adam, AdamW, RMSprop and Adagrad with PyTorch's update formulas, recorded
into the trace."""

from . import lr_scheduler  # noqa: F401
from .adam import Adam, AdamW  # noqa: F401
from .optimizer import Optimizer  # noqa: F401
from .rmsprop import Adagrad, RMSprop  # noqa: F401
from .sgd import SGD  # noqa: F401
