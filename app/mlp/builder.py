"""The MLP builder: form parameters → the equivalent PyTorch-style program text.

The program is the single source of truth: the page writes it into the editor and runs it like any
other program, so what the learner sees is exactly what ran. It only uses what ``import engine as
torch`` supports and runs unchanged under real PyTorch (tests compare the two).

A program has five sections, each built by one function below: header (imports, seed, dtype), data,
model, loss + optimizer, training loop.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..schemas.mlp import MlpConfig
from ..words.messages import own_message
from .comments import localize

ACTIVATIONS = {"relu": "ReLU", "tanh": "Tanh", "sigmoid": "Sigmoid"}
LOSSES = {"mse": "MSELoss", "cross_entropy": "CrossEntropyLoss", "bce": "BCEWithLogitsLoss"}
DEFAULT_NOISE = {"linear": 0.1, "xor": 0.25, "moons": 0.1, "circles": 0.08, "blobs": 0.5}
DATASET_TITLES = {
    "linear": "linear regression y = 2x + 1 + noise",
    "xor": "XOR (four noisy corners)",
    "moons": "two moons",
    "circles": "concentric circles",
    "blobs": "Gaussian blobs",
}


MAX_HIDDEN_LAYERS = 6
HIDDEN_SIZES = (1, 256)  # the smallest and the largest hidden layer


class MlpConfigError(ValueError):
    """A form value that cannot make a working program; ``field`` names the form field."""

    def __init__(self, message: str, field: str):
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class Plan:
    """The facts the program text and the training view derive from a config."""

    task: str  # "regression" or "classification"
    classes: int  # 0 for regression
    input_size: int
    hidden: tuple[int, ...]
    output_size: int
    target: str  # how the loss target is made from y: "y", "float_column", "one_hot"
    threshold: float | None  # single-output classification: predict class 1 above this


def parse_hidden(hidden: str | list[int]) -> tuple[int, ...]:
    """``"8, 16"`` (or ``[8, 16]``) → ``(8, 16)``; an empty text means no hidden layer."""
    if isinstance(hidden, str):
        parts = [p.strip() for p in hidden.replace(";", ",").split(",")]
        sizes = []
        for p in parts:
            if not p:
                continue
            if not p.isdigit():
                raise MlpConfigError(own_message("mlp_hidden_sizes", repr(p)), "hidden")
            sizes.append(int(p))
    else:
        sizes = list(hidden)
    if len(sizes) > MAX_HIDDEN_LAYERS:
        raise MlpConfigError(own_message("mlp_hidden_layers", MAX_HIDDEN_LAYERS), "hidden")
    lo, hi = HIDDEN_SIZES
    for s in sizes:
        if not lo <= s <= hi:
            raise MlpConfigError(own_message("mlp_hidden_size", lo, hi, s), "hidden")
    return tuple(sizes)


def ops_per_pass(hidden: tuple[int, ...], accumulate: int) -> int:
    """Recorded ops of one forward pass, measured: 3 per hidden layer (t, addmm, activation), 2 for the
    output layer, about 2 for the loss, 1 for ``/ accumulate``, 1 to spare (printing)."""
    return 3 * len(hidden) + 2 + 2 + (1 if accumulate > 1 else 0) + 1


def step_limits(cfg: MlpConfig, hidden: tuple[int, ...], output_size: int) -> dict[str, int]:
    """The most steps each runner limit allows: it records every op of every step for the page
    (max_ops), and a pass of the interpreted loop takes up to ~5 ms (timeout_s). Tensors are not a
    limit here: a step frees what the previous one allocated (the runner counts live tensors)."""

    from engine.runner import Settings

    s = Settings()
    k = cfg.accumulate
    return {
        "max_ops": s.max_ops // (k * ops_per_pass(hidden, k)),
        "timeout_s": int(s.timeout_s * 200) // k,
    }


def max_steps_table(max_accumulate: int) -> tuple[list[list[int]], list[list[str]]]:
    """The most steps ``check_steps`` allows for each number of hidden layers (0..MAX_HIDDEN_LAYERS) and
    of micro-batches per step (1..max_accumulate), and the name of the limit that binds for each."""
    steps, names = [], []
    for layers in range(MAX_HIDDEN_LAYERS + 1):
        row, row_names = [], []
        for k in range(1, max_accumulate + 1):
            limits = step_limits(MlpConfig(accumulate=k), (1,) * layers, 1)
            name = min(limits, key=limits.get)
            row.append(max(1, limits[name]))
            row_names.append(name)
        steps.append(row)
        names.append(row_names)
    return steps, names


def check_steps(cfg: MlpConfig, p: Plan) -> None:
    """Refuse more steps than the runner can record, naming the limit that binds."""
    limits = step_limits(cfg, p.hidden, p.output_size)
    name = min(limits, key=limits.get)
    most = max(1, limits[name])
    if cfg.steps > most:
        raise MlpConfigError(own_message("mlp_steps", most, name), "steps")


def plan(cfg: MlpConfig) -> Plan:
    """Check that the form's values fit together, work out the target encoding, check the steps."""
    p = _plan(cfg)
    check_steps(cfg, p)
    return p


def _plan(cfg: MlpConfig) -> Plan:
    hidden = parse_hidden(cfg.hidden)
    if cfg.dataset == "linear":
        if cfg.input_size != 1:
            raise MlpConfigError(own_message("mlp_linear_inputs"), "input_size")
        if cfg.output_size != 1:
            raise MlpConfigError(own_message("mlp_linear_outputs"), "output_size")
        if cfg.loss != "mse":
            raise MlpConfigError(own_message("mlp_linear_loss"), "loss")
        return Plan("regression", 0, 1, hidden, 1, "y", None)
    k = cfg.classes if cfg.dataset == "blobs" else 2
    if cfg.input_size != 2:
        raise MlpConfigError(own_message("mlp_2d_inputs", DATASET_TITLES[cfg.dataset]), "input_size")
    if cfg.loss == "cross_entropy":
        if cfg.output_size != k:
            raise MlpConfigError(own_message("mlp_ce_outputs", k), "output_size")
        return Plan("classification", k, 2, hidden, k, "y", None)
    if cfg.loss == "bce":
        if k != 2:
            raise MlpConfigError(own_message("mlp_bce_classes"), "loss")
        if cfg.output_size != 1:
            raise MlpConfigError(own_message("mlp_bce_outputs"), "output_size")
        return Plan("classification", 2, 2, hidden, 1, "float_column", 0.0)
    # MSE on classes: one output per class (one-hot targets), or one output for two classes.
    if cfg.output_size == k:
        return Plan("classification", k, 2, hidden, k, "one_hot", None)
    if cfg.output_size == 1 and k == 2:
        return Plan("classification", 2, 2, hidden, 1, "float_column", 0.5)
    if k == 2:
        raise MlpConfigError(own_message("mlp_mse_outputs_or_1", k, k), "output_size")
    raise MlpConfigError(own_message("mlp_mse_outputs", k, k), "output_size")


# ---- sections ----------------------------------------------------------------------------------
def header_section(cfg: MlpConfig, p: Plan) -> list[str]:
    """Imports, the seed and the default dtype."""
    hidden = ", ".join(str(h) for h in p.hidden) or "none"
    lines = [
        f"# A {p.input_size}-{'-'.join(str(h) for h in p.hidden) + '-' if p.hidden else ''}"
        f"{p.output_size} network trained on {DATASET_TITLES[cfg.dataset]}",
        f"# (hidden sizes: {hidden}; generated by the MLP builder: edit it freely)",
        "import torch",
        "import torch.nn as nn",
        "",
        f"torch.manual_seed({cfg.seed})",
    ]
    if cfg.dtype == "float64":
        lines.append("torch.set_default_dtype(torch.float64)")
    return lines


def data_section(cfg: MlpConfig, p: Plan) -> list[str]:
    """The data set, generated from the seed with torch ops (X: inputs, y: targets or labels)."""
    n = cfg.n_points
    noise = cfg.noise if cfg.noise is not None else DEFAULT_NOISE[cfg.dataset]
    lines = ["", f"# Data: {DATASET_TITLES[cfg.dataset]}, {n} points", f"n = {n}"]
    if cfg.dataset == "linear":
        lines += [
            "X = torch.rand(n, 1) * 2 - 1  # inputs in [-1, 1]",
            f"y = 2 * X + 1 + {noise} * torch.randn(n, 1)",
        ]
    elif cfg.dataset == "xor":
        lines += [
            "a = torch.randint(0, 2, (n,))",
            "b = torch.randint(0, 2, (n,))",
            "y = (a != b).long()  # class 1 where exactly one coordinate is 1",
            f"X = torch.stack([a, b], dim=1) * 2.0 - 1.0 + {noise} * torch.randn(n, 2)",
        ]
    elif cfg.dataset == "moons":
        lines += [
            "y = torch.randint(0, 2, (n,))  # which moon",
            "t = torch.rand(n) * 3.141592653589793",
            "s = 1 - 2 * y  # +1 for the upper moon, -1 for the lower one",
            "X = torch.stack([y + s * torch.cos(t), 0.5 * y + s * torch.sin(t)], dim=1)",
            f"X = X + {noise} * torch.randn(n, 2)",
        ]
    elif cfg.dataset == "circles":
        lines += [
            "y = torch.randint(0, 2, (n,))  # 0: outer circle, 1: inner circle",
            "t = torch.rand(n) * 2 * 3.141592653589793",
            "r = 1 - 0.5 * y",
            "X = torch.stack([r * torch.cos(t), r * torch.sin(t)], dim=1)",
            f"X = X + {noise} * torch.randn(n, 2)",
        ]
    else:
        lines += [
            f"k = {p.classes}",
            "y = torch.randint(0, k, (n,))  # each point's blob",
            "angle = y * (2 * 3.141592653589793 / k)  # blob centres on a circle of radius 2",
            "X = torch.stack([2 * torch.cos(angle), 2 * torch.sin(angle)], dim=1)",
            f"X = X + {noise} * torch.randn(n, 2)",
        ]
    if p.target == "float_column":
        lines.append("target = y.unsqueeze(1).to(X.dtype)  # shape (n, 1), values 0.0 or 1.0")
    elif p.target == "one_hot":
        lines.append(f"target = (y.unsqueeze(1) == torch.arange({p.output_size})).to(X.dtype)  # one-hot")
    return lines


def _layers(p: Plan) -> list[tuple[int, int]]:
    sizes = [p.input_size, *p.hidden, p.output_size]
    return list(zip(sizes[:-1], sizes[1:]))


def model_section(cfg: MlpConfig, p: Plan) -> list[str]:
    """An ``nn.Module`` subclass (fc1, act1, fc2, ...) or an ``nn.Sequential``."""
    act = ACTIVATIONS[cfg.activation]
    layers = _layers(p)
    lines = ["", "# Model"]
    if cfg.style == "sequential":
        lines.append("model = nn.Sequential(")
        for i, (a, b) in enumerate(layers):
            lines.append(f"    nn.Linear({a}, {b}),")
            if i < len(layers) - 1:
                lines.append(f"    nn.{act}(),")
        lines.append(")")
        return lines
    lines += ["class Net(nn.Module):", "    def __init__(self):", "        super().__init__()"]
    for i, (a, b) in enumerate(layers, start=1):
        lines.append(f"        self.fc{i} = nn.Linear({a}, {b})")
        if i < len(layers):
            lines.append(f"        self.act{i} = nn.{act}()")
    lines += ["", "    def forward(self, x):"]
    for i in range(1, len(layers)):
        lines.append(f"        x = self.act{i}(self.fc{i}(x))")
    lines += [f"        return self.fc{len(layers)}(x)", "", "", "model = Net()"]
    return lines


def setup_section(cfg: MlpConfig, p: Plan) -> list[str]:
    """The loss function and the optimizer."""
    lines = ["", f"loss_fn = nn.{LOSSES[cfg.loss]}()"]
    if cfg.optimizer == "adam":
        lines.append(f"optimizer = torch.optim.Adam(model.parameters(), lr={cfg.lr})")
    elif cfg.momentum:
        lines.append(f"optimizer = torch.optim.SGD(model.parameters(), lr={cfg.lr}, momentum={cfg.momentum})")
    else:
        lines.append(f"optimizer = torch.optim.SGD(model.parameters(), lr={cfg.lr})")
    return lines


def _accuracy_line(p: Plan, out: str, indent: str) -> str:
    if p.threshold is None:
        pred = f"{out}.argmax(dim=1)"
    else:
        pred = f"({out}.squeeze(1) > {p.threshold}).long()"
    return f"{indent}acc = ({pred} == y).sum().item() / n"


def print_every(cfg: MlpConfig) -> int:
    """How often the loop prints: the config's choice, else five times per run."""
    return cfg.print_every or max(1, cfg.steps // 5)


def loop_section(cfg: MlpConfig, p: Plan) -> list[str]:
    """The training loop: zero_grad, forward, loss, backward (per micro-batch), step, print."""
    n, k = cfg.n_points, cfg.accumulate
    batch = cfg.batch_size if cfg.batch_size and cfg.batch_size < n else None
    tgt = "y" if p.target == "y" else "target"
    full = batch is None and k == 1
    lines = ["", f"steps = {cfg.steps}"]
    if batch is not None:
        lines.append(f"batch_size = {batch}")
    if k > 1:
        lines.append(f"accumulate = {k}  # micro-batches whose gradients add up before each step")
        if batch is None:
            lines.append("batch_size = n // accumulate")
    lines.append("for step in range(steps):")
    if cfg.zero_grad:
        lines.append("    optimizer.zero_grad()  # set every .grad to None (torch 2.x: set_to_none=True)")
    else:
        lines.append("    # optimizer.zero_grad() is left out: every .grad keeps growing")
    body = "    "
    if k > 1:
        lines += ["    total = 0.0", "    for micro in range(accumulate):"]
        body = "        "
        lines.append(f"{body}i = ((step * accumulate + micro) * batch_size) % n")
    elif batch is not None:
        lines.append(f"{body}i = (step * batch_size) % n")
    if full:
        lines += [f"{body}out = model(X)", f"{body}loss = loss_fn(out, {tgt})"]
    else:
        lines += [
            f"{body}xb, tb = X[i:i + batch_size], {tgt}[i:i + batch_size]",
            f"{body}out = model(xb)",
            f"{body}loss = loss_fn(out, tb)" + (" / accumulate" if k > 1 else ""),
        ]
    lines.append(f"{body}loss.backward()  # adds this batch's gradients into each .grad")
    if k > 1:
        lines.append(f"{body}total += loss.item()")
    lines.append("    optimizer.step()  # p ← p − lr·grad (or Adam's rule)")
    every = print_every(cfg)
    cond = "(step + 1) % print_every == 0" if every > 1 else "True"
    lines.insert(lines.index("for step in range(steps):"), f"print_every = {every}")
    loss_val = "total" if k > 1 else "loss.item()"
    lines.append(f"    if {cond}:")
    if p.task == "regression":
        lines.append(f'        print(f"step {{step + 1}}: loss {{{loss_val}:.4f}}")')
        return lines
    if full:
        lines.append(_accuracy_line(p, "out", "        "))
    else:
        lines += ["        with torch.no_grad():", _accuracy_line(p, "model(X)", "            ")]
    lines.append(f'        print(f"step {{step + 1}}: loss {{{loss_val}:.4f}}  accuracy {{acc:.1%}}")')
    return lines


def result_section(cfg: MlpConfig, p: Plan) -> list[str]:
    """For a single linear layer on the regression data: print the fitted w and b."""
    if p.task != "regression" or p.hidden:
        return []
    layer = "model[0]" if cfg.style == "sequential" else "model.fc1"
    return ["", f"w = {layer}.weight", f"b = {layer}.bias",
            'print(f"w = {w.item():.4f}, b = {b.item():.4f}  (the data came from w = 2, b = 1)")']


def build_program(cfg: MlpConfig) -> tuple[str, Plan]:
    """The whole program text for ``cfg`` and the plan behind it; raises MlpConfigError."""
    p = plan(cfg)
    lines: list[str] = []
    for section in (header_section, data_section, model_section, setup_section, loop_section,
                    result_section):
        lines += section(cfg, p)
    return "\n".join(localize(lines, cfg.lang)) + "\n", p
