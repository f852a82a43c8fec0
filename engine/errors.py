"""Errors the engine raises. PyTorch raises plain RuntimeError for autograd misuse; so do we,
with PyTorch's texts, so user code that catches RuntimeError behaves the same."""

import re


class LimitError(RuntimeError):
    """A resource limit of the sandbox was exceeded (the message names the limit)."""


class NotSupportedError(RuntimeError):
    """Something PyTorch has that gradviz chooses not to support (a RuntimeError, so a program
    that catches PyTorch's errors goes on as it would)."""


NOT_SUPPORTED = "not supported in gradviz: "  # the page translates messages that start with it


def not_supported(what: str) -> NotSupportedError:
    """The error for a feature gradviz does not support: "not supported in gradviz: ``what``" (the
    one place this text is made, so the page can show it in the reader's language)."""
    return NotSupportedError(NOT_SUPPORTED + what)


def read_only(kind: str, name: str, fields=(), methods=()) -> AttributeError:
    """What PyTorch raises when a program sets or deletes attribute ``name`` of one of its immutable
    objects of type ``kind`` ("torch.device"): ``fields`` and ``methods`` are the data attributes and
    the methods PyTorch's class has (Python's own texts for a built-in type's instance)."""
    if name in fields:
        return AttributeError(f"attribute '{name}' of '{kind}' objects is not writable")
    if name in methods:
        return AttributeError(f"'{kind}' object attribute '{name}' is read-only")
    return AttributeError(f"'{kind}' object has no attribute '{name}'")


BACKWARD_TWICE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)
NO_GRAD_FN = "element 0 of tensors does not require grad and does not have a grad_fn"
IMPLICIT_NON_SCALAR = "grad can be implicitly created only for scalar outputs"
LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_LEAF_INPLACE = "a view of a leaf Variable that requires grad is being used in an in-place operation."
VIEW_INPLACE_UNSUPPORTED = (
    "gradviz cannot write in place through this view: its data is not laid out inside its base "
    "tensor (e.g. a reshape that had to copy); write it out of place instead, e.g. y = y * mask"
)
NON_LEAF_REQUIRES_GRAD = (
    "you can only change requires_grad flags of leaf variables. If you want to use a computed "
    "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
)
ONLY_FLOAT_GRAD = "Only Tensors of floating point and complex dtype can require gradients"
ONLY_FLOAT_REQUIRES_GRAD_ = "only Tensors of floating point dtype can require gradients"  # x.requires_grad_()
NUMPY_REQUIRES_GRAD = "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
    "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
    "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor "
    "by mistake, make sure you access the leaf Tensor instead. See "
    "github.com/pytorch/pytorch/pull/30531 for more information. (Triggered internally at "
    "/__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)"
)
COPY_CONSTRUCT = (
    "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
    "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor)."
)
CREATE_GRAPH_CYCLE = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter and its "
    "gradient which can cause a memory leak. We recommend using autograd.grad when creating the graph to "
    "avoid this. If you have to use this function, make sure to reset the .grad fields of your parameters "
    "to None after use to break the cycle and avoid the leak. (Triggered internally at "
    "/__w/pytorch/pytorch/torch/csrc/autograd/engine.cpp:1307.)"
)
SCALAR_OF_GRAD = (
    "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
    "Consider using tensor.detach() first. (Triggered internally at "
    "/__w/pytorch/pytorch/torch/csrc/autograd/generated/python_variable_methods.cpp:822.)"
)
UNUSED_INPUT = (
    "The differentiated Tensor at index {index} appears to not have been used in the graph. "
    "Set allow_unused=True if this is the desired behavior."
)


def inplace_modified(type_desc: str, shape: tuple, output_nr: int, fn_name: str, version: int,
                     expected: int) -> str:
    """PyTorch's message for a saved tensor changed in place after it was saved.
    ``fn_name`` is the grad_fn that produced the tensor's current version ("" for none)."""

    short = re.sub(r"Backward\d*$", "", fn_name)
    where = f", which is output {output_nr} of {short}," if fn_name else ""
    return (
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [{type_desc} [{', '.join(str(s) for s in shape)}]]{where}"
        f" is at version {version}; expected version {expected} instead. Hint: enable "
        "anomaly detection to find the operation that failed to compute its gradient, with "
        "torch.autograd.set_detect_anomaly(True, check_nan=False)."
    )


def multi_view_inplace(output_nr: int, fn_name: str, base_changed: bool = False) -> str:
    """PyTorch's message for an in-place change of an output of unbind, split or chunk (or, when its
    grad_fn is asked for afterwards, of its base or another view of it)."""
    short = re.sub(r"Backward\d*$", "", fn_name)
    what = "its base or another view of its base has been modified inplace" if base_changed else \
        "is being modified inplace"
    return (f"Output {output_nr} of {short} is a view and {what}. This view is the output "
            "of a function that returns multiple views. Such functions do not allow the output views to be "
            "modified inplace. You should replace the inplace operation by an out-of-place one.")


INFERENCE_INPLACE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a "
    "normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details.")
INFERENCE_SAVED = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode "
    "in computation tracked by autograd. To work around this, you can make a clone to get a normal tensor "
    "and use it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`.")
