"""What a diagnosis says, in English and Chinese, in the program's names: one template per cause
(and per op where the op decides the words), filled in with the finding's nodes and numbers."""

from __future__ import annotations

SYMPTOM = {
    "none": ("{n}.grad is None.", "{n}.grad 是 None。"),
    "zero": ("{n}.grad is all zeros.", "{n}.grad 全是 0。"),
    "part_zero": ("{n}.grad is 0 in part.", "{n}.grad 有一部分是 0。"),
    "nonfinite": ("{n}.grad holds inf or NaN.", "{n}.grad 含有 inf 或 NaN。"),
    "tiny": ("{n}.grad is tiny against its value.", "{n}.grad 相对它的值小得可以忽略。"),
    "huge": ("{n}.grad is huge against its value.", "{n}.grad 相对它的值大得离谱。"),
}

CUT = {
    "detach": ("{where}{src}.detach() made {made}, a tensor with no history: the gradient stops "
               "there and never flows back to {n}.",
               "{where}{src}.detach() 得到的 {made} 没有计算历史：梯度在那里停下，传不回 {n}。"),
    "data": ("{where}{src}.data gave {made}, the same numbers without history: the gradient stops "
             "there and never flows back to {n}.",
             "{where}{src}.data 得到的 {made} 只有数值、没有计算历史：梯度在那里停下，传不回 {n}。"),
    "item": ("{where}{src}.item() turned the tensor into a Python number: what is computed from it "
             "is a constant to autograd, so nothing flows back to {n}.",
             "{where}{src}.item() 把张量变成了 Python 数：之后由它算出的东西对 autograd 是常数，"
             "梯度传不回 {n}。"),
    "no_grad": ("{where}{ran} of {src} ran under torch.no_grad(): its result {made} has no grad_fn, "
                "so the gradient stops there and never reaches {n}.",
                "{where}{src} 的 {ran} 在 torch.no_grad() 下运行：结果 {made} 没有 grad_fn，"
                "梯度在那里停下，到不了 {n}。"),
    "integer": ("{where}{ran} turned {src} into an integer or boolean tensor {made}: such values have "
                "no gradient, so the path to {n} is cut.",
                "{where}{ran} 把 {src} 变成了整数或布尔张量 {made}：它们没有梯度，通往 {n} 的路径被切断。"),
    "argmax": ("{where}{ran} of {src} gives indices (integers), which have no derivative: the path "
               "to {n} is cut.",
               "{where}{src} 的 {ran} 给出的是下标（整数），没有导数：通往 {n} 的路径被切断。"),
    "compare": ("{where}the comparison {ran} of {src} gives booleans, which have no derivative: the "
                "path to {n} is cut.",
                "{where}对 {src} 的比较 {ran} 得到布尔值，没有导数：通往 {n} 的路径被切断。"),
    "requires_grad": ("{n} was created with requires_grad=False (the default), so autograd computes "
                      "no gradient for it: create it with requires_grad=True, or call "
                      "{n}.requires_grad_().",
                      "{n} 创建时 requires_grad=False（默认值），autograd 不为它计算梯度：创建时写 "
                      "requires_grad=True，或调用 {n}.requires_grad_()。"),
    "unused": ("{n} never reached the loss: nothing backward() started from was computed from it.",
               "{n} 没有参与损失的计算：backward() 的起点不是由它算出的。"),
    "op": ("{op} has derivative 0 everywhere, so it sends 0 back: the path to {n} is cut there.",
           "{op} 处处导数为 0，传回的是 0：通往 {n} 的路径在那里被切断。"),
}

# A tensor that a cut made: how it was made (then ``MADE``'s sentence)
HOW = {
    "detach": (".detach()", ".detach()"), "data": (".data", ".data"),
    "no_grad": ("{ran} under torch.no_grad()", "在 torch.no_grad() 下的 {ran}"),
    "integer": ("an integer or boolean cast ({ran})", "整数或布尔类型转换（{ran}）"),
    "argmax": ("{ran}, which gives indices", "给出下标的 {ran}"),
    "compare": ("the comparison {ran}", "比较 {ran}"),
}
MADE = ("{where}{n} was made from {src} by {how}: it carries no history, so it does not require grad "
        "and no gradient is computed for it (nor flows through it back to {src}).",
        "{where}{n} 是由 {src} 经 {how} 得到的：它没有计算历史，不需要梯度，autograd 不为它计算梯度"
        "（梯度也不会经它传回 {src}）。")

ZEROED = {
    "relu": ("The ReLU {op} sent 0 for {zeros} of {size} elements: its inputs there were ≤ 0.",
             "ReLU {op} 对 {size} 个元素中的 {zeros} 个传回 0：那里它的输入 ≤ 0。"),
    "zero_grad": ("backward() wrote the gradient, then zero_grad() reset it{where2} before it was read: "
                  "call zero_grad() before backward(), not between backward() and the read.",
                  "backward() 写入了梯度，随后 zero_grad(){where2} 在读取之前把它清掉了：应在 backward() "
                  "之前调用 zero_grad()，而不是在 backward() 与读取之间。"),
    "hook": ("The hook {hook}{where2} returned zeros instead of the gradient it was given.",
             "钩子 {hook}{where2} 没有返回收到的梯度，而是返回了 0。"),
    "op": ("{op} sent 0 for {zeros} of {size} elements: {reason}",
           "{op} 对 {size} 个元素中的 {zeros} 个传回 0：{reason_zh}"),
}

REASON = {
    "clamp": ("its input was outside the clamp range there.", "那里输入超出了 clamp 的范围。"),
    "max": ("only the elements it picked get a gradient.", "只有被选中的元素得到梯度。"),
    "where": ("where took the other branch there.", "where 在那里取了另一个分支。"),
    "index": ("those elements were not picked.", "那些元素没有被选中。"),
    "product": ("the other factor is 0 there.", "那里另一个因子是 0。"),
    "other": ("its local derivative is 0 there.", "那里它的局部导数为 0。"),
}
_REASON_OF = {"clamp": "clamp", "clamp_min": "clamp", "clamp_max": "clamp", "max": "max", "min": "max",
              "max_dim": "max", "min_dim": "max", "maximum": "max", "minimum": "max", "where": "where",
              "index": "index", "select": "index", "slice": "index", "index_put": "index",
              "copy_slices": "index", "mul": "product", "mm": "product", "mv": "product", "bmm": "product",
              "addmm": "product", "dot": "product"}

SCALE = {
    "vanish": ("From the loss to {n} the gradient's mean size fell to {mean}, below the threshold "
               "{limit}, at {op}, which multiplied it by {factor}.",
               "从损失到 {n}，梯度的平均大小降到 {mean}，低于阈值 {limit}；降到阈值以下是在 {op}，"
               "它把梯度乘以 {factor}。"),
    "explode": ("From the loss to {n} the gradient's mean size grew to {mean}, above the threshold "
                "{limit}, at {op}, which multiplied it by {factor}.",
                "从损失到 {n}，梯度的平均大小增长到 {mean}，超过阈值 {limit}；超过阈值是在 {op}，"
                "它把梯度乘以 {factor}。"),
}

NONFINITE = {
    "forward": ("{op} made inf or NaN in the forward pass from finite inputs ({inputs}){reason}.",
                "{op} 在前向计算中由有限的输入（{inputs}）得到了 inf 或 NaN{reason_zh}。"),
    "backward": ("{op}'s local gradient became inf or NaN at inputs {inputs}{reason}.",
                 "{op} 的局部梯度在输入为 {inputs} 时变成了 inf 或 NaN{reason_zh}。"),
}
NONFINITE_REASON = {
    "log": (": log of a value ≤ 0", "：对 ≤ 0 的值取 log"),
    "sqrt": (": the derivative of sqrt at 0 is 1/(2·√0)", "：sqrt 在 0 处的导数是 1/(2·√0)"),
    "div": (": a division by 0", "：除以 0"),
    "exp": (": exp overflowed", "：exp 溢出"),
}

NOT_YET = {
    "retain_grad": ("{n} is not a leaf (autograd computed it): PyTorch keeps .grad only for leaves and "
                    "warns when a non-leaf's .grad is read. Call {n}.retain_grad() before backward() "
                    "to keep it.",
                    "{n} 不是叶子张量（由 autograd 计算得到）：PyTorch 只为叶子保留 .grad，读取非叶子的 "
                    ".grad 会发出警告。在 backward() 之前调用 {n}.retain_grad() 就能保留它。"),
    "backward": (".grad is filled by backward(), which had not run when it was read.",
                 ".grad 由 backward() 填写，而读取时 backward() 还没有运行。"),
}
# Where a long chain or list of layers was left out in its middle (app/worker/why/trim.py)
GAP_OPS = ("… {k} more ops …", "……中间还有 {k} 个运算……")
GAP_LAYERS = ("… {k} more ReLU layers …", "……中间还有 {k} 个 ReLU 层……")
UNKNOWN = ("gradviz found no op on the recorded path that explains it.",
           "gradviz 在记录的路径上没有找到能解释它的 op。")

# The terminal's lines (gradviz why), by language (False: English, True: Chinese)
HEALTHY = {False: "{n}'s gradient looks healthy: not None, no zeros, finite, neither tiny nor huge.",
           True: "{n} 的梯度看起来正常：不是 None，没有 0，是有限值，既不过小也不过大。"}
PATH = {False: "Path: {path}", True: "路径：{path}"}
THRESHOLDS = {
    False: "Suspicious: .grad is None, 0 (all or in part), inf or NaN, tiny (mean |grad| < {tiny:g} × "
           "max(mean |value|, 1)) or huge (mean |grad| > {huge:g} × max(mean |value|, 1)).",
    True: "可疑的梯度：.grad 为 None、为 0（全部或部分）、含 inf 或 NaN、过小（平均 |grad| < {tiny:g} × "
          "max(平均 |值|, 1)）或过大（平均 |grad| > {huge:g} × max(平均 |值|, 1)）。",
}
