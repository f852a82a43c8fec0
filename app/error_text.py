"""Error messages in the reader's language.

gradviz's own messages (a limit, a construct the sandbox refuses, an op it does not support, an
overloaded server) are translated: ``OWN`` maps each message's text, with ``{}`` where it varies,
to its Chinese, ``{0}``, ``{1}``... standing for what varied (a part that is itself a message of
ours is translated too). PyTorch's and Python's own texts stay verbatim, as they are what a search
engine knows: ``FOREIGN`` explains the common ones in both languages, and every other one gets a
sentence for its type. A test finds every message the code base can raise and fails while one of
ours has no Chinese here.
"""

# ruff: noqa: E501 - a table of sentences in two languages reads best one entry to a line

from __future__ import annotations

import re
from functools import lru_cache

# ---- gradviz's own messages: English text (``{}`` where it varies) -> Chinese ---------------------------
OWN: dict[str, str] = {
    # limits (the "(limit: name)" note is said in words by the page, in its language)
    "the program ran longer than {} s (limit: timeout_s)": "程序运行超过了 {0} 秒 (limit: timeout_s)",
    "the program ran more than {} loop iterations (limit: max_loop_iterations)":
        "程序的循环迭代超过了 {0} 次 (limit: max_loop_iterations)",
    "function calls nested more than {} deep (limit: max_recursion)": "函数调用嵌套超过了 {0} 层 (limit: max_recursion)",
    "the program nests calls or expressions too deeply (limit: max_recursion)":
        "程序的调用或表达式嵌套太深 (limit: max_recursion)",
    "the program ran out of memory (limit: max_tensor_bytes)": "程序用完了内存 (limit: max_tensor_bytes)",
    "the program holds more than {} MB of tensors (limit: max_tensor_bytes)":
        "程序持有的张量超过了 {0} MB (limit: max_tensor_bytes)",
    "the program recorded more than {} ops (limit: max_ops)": "程序记录的运算超过了 {0} 个 (limit: max_ops)",
    "an integer of about {} bits is over the limit of {} bits (limit: max_int_bits)":
        "一个约 {0} 位的整数超过了 {1} 位的限制 (limit: max_int_bits)",
    "an integer literal of {} bits is over the limit of {} bits (limit: max_int_bits)":
        "一个 {0} 位的整数字面量超过了 {1} 位的限制 (limit: max_int_bits)",
    "pow(base, exp, mod) with numbers this large takes too long (limit: max_int_bits)":
        "对这么大的数计算 pow(base, exp, mod) 太慢 (limit: max_int_bits)",
    "a string of {} characters is over the limit of {} (limit: max_str_chars)":
        "一个 {0} 个字符的字符串超过了 {1} 的限制 (limit: max_str_chars)",
    "the text of this value is longer than {} characters (limit: max_str_chars)":
        "这个值的文本超过了 {0} 个字符 (limit: max_str_chars)",
    "format width or precision {} is over the limit of {} characters (limit: max_str_chars)":
        "格式宽度或精度 {0} 超过了 {1} 个字符的限制 (limit: max_str_chars)",
    "a list of {} items is over the limit of {} (limit: max_list_items)":
        "一个 {0} 项的列表超过了 {1} 的限制 (limit: max_list_items)",
    "a tensor of {} elements is over the limit of {} elements per tensor (limit: max_tensor_elements)":
        "一个 {0} 个元素的张量超过了每个张量 {1} 个元素的限制 (limit: max_tensor_elements)",
    "a tensor of shape {} counts as {} elements (an empty dimension counts as 1), over the limit of {} "
    "elements per tensor (limit: max_tensor_elements)":
        "形状为 {0} 的张量按 {1} 个元素计（空维度按 1 计），超过了每个张量 {2} 个元素的限制 "
        "(limit: max_tensor_elements)",
    "nested lists of more than {} elements (limit: max_tensor_elements)":
        "嵌套列表的元素超过了 {0} 个 (limit: max_tensor_elements)",
    "nested lists more than {} levels deep (a tensor has at most {} dimensions) (limit: max_nesting)":
        "嵌套列表超过了 {0} 层（张量最多有 {1} 个维度） (limit: max_nesting)",
    "the code is nested more than {} levels deep (limit: max_nesting)": "代码嵌套超过了 {0} 层 (limit: max_nesting)",
    "the code is nested too deeply (more than {} levels) (limit: max_nesting)":
        "代码嵌套太深（超过 {0} 层） (limit: max_nesting)",
    "the program has more than {} syntax nodes (limit: max_ast_nodes)":
        "程序的语法节点超过了 {0} 个 (limit: max_ast_nodes)",
    "the source has {} characters; the limit is {} (limit: max_source_chars)":
        "源代码有 {0} 个字符；限制是 {1} (limit: max_source_chars)",
    "the source must be a string": "源代码必须是字符串",
    # what the sandbox refuses
    "'{}' objects cannot be used in a with statement in gradviz (torch.no_grad(), torch.enable_grad() and "
    "torch.set_grad_enabled() can)":
        "在 gradviz 中 '{0}' 对象不能用于 with 语句（torch.no_grad()、torch.enable_grad() 和 "
        "torch.set_grad_enabled() 可以）",
    "attribute '{}' is not available in gradviz (attributes starting with '_' are private)":
        "属性 '{0}' 在 gradviz 中不可用（以 '_' 开头的属性是私有的）",
    "attribute '{}' is not available in gradviz": "属性 '{0}' 在 gradviz 中不可用",
    "attribute '{}' of {} objects is not available in gradviz": "{1} 对象的属性 '{0}' 在 gradviz 中不可用",
    "attributes of the class {} are not available in gradviz (create an instance and use its attributes)":
        "类 {0} 的属性在 gradviz 中不可用（请先创建实例，再使用实例的属性）",
    "calling {} is not allowed in gradviz": "gradviz 不允许调用 {0}",
    "cannot assign to {}": "不能给 {0} 赋值",
    "class decorators are not supported by gradviz": "gradviz 不支持类装饰器",
    "class keywords (metaclass=...) are not supported by gradviz": "gradviz 不支持类关键字参数（metaclass=...）",
    "a class may only extend nn.Module, an nn layer, torch.autograd.Function or another class of the program":
        "类只能继承 nn.Module、nn 中的层、torch.autograd.Function 或程序自己定义的类",
    "type() with three arguments (making a class) is not supported by gradviz":
        "gradviz 不支持带三个参数的 type()（用来创建类）",
    "numpy.ndarray(...) is not available in gradviz: make arrays with np.array, np.zeros, ...":
        "numpy.ndarray(...) 在 gradviz 中不可用：请用 np.array、np.zeros 等创建数组",
    "Invalid norm order '{}' for gradviz's numpy": "gradviz 的 numpy 不支持范数阶数 '{0}'",
    "{}(): dtype {} is not one of the numeric dtypes gradviz's numpy offers":
        "{0}()：数据类型 {1} 不是 gradviz 的 numpy 提供的数值类型",
    "a DataLoader over a {} (use a TensorDataset, a tensor or a list)":
        "基于 {0} 的 DataLoader（请用 TensorDataset、张量或列表）",
    "decorators other than @torch.no_grad(), @torch.enable_grad(), @property, @staticmethod and @classmethod "
    "are not supported by gradviz":
        "gradviz 只支持 @torch.no_grad()、@torch.enable_grad()、@property、@staticmethod 和 @classmethod 这些装饰器",
    "defining '{}' is not supported by gradviz (only __init__ among the special methods)":
        "gradviz 不支持定义 '{0}'（特殊方法中只支持 __init__）",
    "defining '{}' is not supported by gradviz": "gradviz 不支持定义 '{0}'",
    "deleting attribute '{}' is not allowed in gradviz": "gradviz 不允许删除属性 '{0}'",
    "format field '{{}}' is not allowed in gradviz: use a position or a name, and compute attributes and items "
    "before formatting":
        "gradviz 不允许格式字段 '{{0}}'：请用位置或名字，并在格式化之前先算出属性和元素",
    "import from '{}' is not allowed: gradviz runs PyTorch code only ({} can be imported)":
        "不允许从 '{0}' 导入：gradviz 只运行 PyTorch 代码（可以导入 {1}）",
    "import of '{}' is not allowed: gradviz runs PyTorch code only ({} can be imported)":
        "不允许导入 '{0}'：gradviz 只运行 PyTorch 代码（可以导入 {1}）",
    "keyword argument '{}' is not available in gradviz": "关键字参数 '{0}' 在 gradviz 中不可用",
    "relative imports are not allowed in gradviz": "gradviz 不允许相对导入",
    "setting attribute '{}' of a tensor is not supported": "不支持设置张量的属性 '{0}'",
    "setting attributes of {} objects is not allowed in gradviz": "gradviz 不允许设置 {0} 对象的属性",
    "the class name '{}' is not allowed": "不允许使用类名 '{0}'",
    "the name '{}' is not allowed": "不允许使用名字 '{0}'",
    "the name '{}' is not available in gradviz (names starting with '__' are reserved)":
        "名字 '{0}' 在 gradviz 中不可用（以 '__' 开头的名字是保留的）",
    "the parameter name '{}' is not allowed": "不允许使用参数名 '{0}'",
    "{} name can't start with '_' in gradviz (such names are private): {}":
        "在 gradviz 中 {0} 的名字不能以 '_' 开头（这样的名字是私有的）：{1}",
    "super() takes zero or two arguments in gradviz": "在 gradviz 中 super() 只接受零个或两个参数",
    "super(cls, obj) needs a class defined by the program": "super(cls, obj) 需要程序自己定义的类",
    "NumPy arrays of dtype {} are not supported by gradviz": "gradviz 不支持数据类型为 {0} 的 NumPy 数组",
    "{} statements are not supported by gradviz": "gradviz 不支持 {0} 语句",
    "'global' statements are not supported by gradviz": "gradviz 不支持 'global' 语句",
    "'nonlocal' statements are not supported by gradviz": "gradviz 不支持 'nonlocal' 语句",
    "async functions are not supported by gradviz": "gradviz 不支持 async 函数",
    "async for is not supported by gradviz": "gradviz 不支持 async for",
    "async with is not supported by gradviz": "gradviz 不支持 async with",
    "await is not supported by gradviz": "gradviz 不支持 await",
    "generators (yield) are not supported by gradviz": "gradviz 不支持生成器（yield）",
    "generators (yield from) are not supported by gradviz": "gradviz 不支持生成器（yield from）",
    "match statements are not supported by gradviz": "gradviz 不支持 match 语句",
    "except* is not supported by gradviz": "gradviz 不支持 except*",
    "bytes literals are not supported by gradviz": "gradviz 不支持 bytes 字面量",
    "str() with an encoding is not supported by gradviz": "gradviz 不支持带编码参数的 str()",
    "'*' widths in % formatting are not supported by gradviz": "gradviz 不支持 % 格式化中的 '*' 宽度",
    # what the engine does not support
    "not supported in gradviz: {}": "gradviz 不支持：{0}",
    # what follows "not supported in gradviz: " when it is words rather than code
    "DataLoader samplers": "DataLoader 的采样器（sampler）",
    "an autograd.Function whose forward returns several outputs": "forward 返回多个输出的 autograd.Function",
    "complex numbers in arange()": "arange() 中的复数",
    "complex numbers": "复数",
    "cross_entropy with label_smoothing": "带 label_smoothing 的 cross_entropy",
    "ctx.mark_dirty (in-place autograd.Function)": "ctx.mark_dirty（原地修改的 autograd.Function）",
    "ctx.save_for_forward (forward-mode rules of an autograd.Function)":
        "ctx.save_for_forward（autograd.Function 的前向模式规则）",
    "keyword arguments to autograd.Function.apply": "传给 autograd.Function.apply 的关键字参数",
    "mse_loss with weight": "带 weight 的 mse_loss",
    "pos_weight that requires grad": "需要梯度的 pos_weight",
    "Tensor.{} of a tensor a graph computed": "对计算图算出的张量调用 Tensor.{0}",
    "the nuclear norm (p='nuc')": "核范数（p='nuc'）",
    "torch.func.jvp inside another forward-mode level": "在另一个前向模式层级内部调用 torch.func.jvp",
    "where(condition) with one argument": "只有一个参数的 where(condition)",
    "batching items of type {}": "把类型为 {0} 的元素组成批次",
    "matrix norms (linalg.norm with ord={}); use linalg.vector_norm":
        "矩阵范数（linalg.norm 且 ord={0}）；请用 linalg.vector_norm",
    "the '{}' device (gradviz computes on the CPU)": "'{0}' 设备（gradviz 在 CPU 上计算）",
    "gradviz supports clamp with number bounds only (not tensors)": "gradviz 只支持以数作为上下界的 clamp（不支持张量）",
    "gradviz does not support indexing with a Python bool": "gradviz 不支持用 Python 的 bool 做下标",
    "gradviz does not support a 0-dim boolean index": "gradviz 不支持 0 维的布尔下标",
    "gradviz cannot write in place through this view: its data is not laid out inside its base tensor (e.g. a "
    "reshape that had to copy); write it out of place instead, e.g. y = y * mask":
        "gradviz 不能通过这个视图原地写入：它的数据不在其基张量之内（例如需要复制的 reshape）；请改为非原地写法，"
        "例如 y = y * mask",
    # the server
    "the request body is over {} KB": "请求体超过了 {0} KB",
    "the request body is not valid JSON": "请求体不是合法的 JSON",
    "the request body is not valid JSON: {}": "请求体不是合法的 JSON：{0}",
    "the server is busy; try again in {} s": "服务器繁忙；请在 {0} 秒后重试",
    "{} (every worker is busy)": "{0}（所有工作进程都在忙）",
    "{} (limit: timeout_s)": "{0} (limit: timeout_s)",
    "the program ran past its deadline and was stopped": "程序超过了截止时间，已被停止",
    "the program did not start before its deadline": "程序没能在截止时间之前开始运行",
    "the program stopped its worker process: {}": "程序让它的工作进程停止了：{0}",
    "the worker process could not be started": "工作进程无法启动",
    "the worker process ended before it took the request": "工作进程在接收请求之前就结束了",
    "the worker process ended without answering (it may have run out of memory or CPU time)":
        "工作进程没有回答就结束了（可能用完了内存或 CPU 时间）",
    "the worker was stopped: {}": "工作进程被停止了：{0}",
    "the worker's first message was not a greeting": "工作进程的第一条消息不是问候",
    "the worker's answer was not data: {}": "工作进程的回答不是数据：{0}",
    "the worker's answer was not one of the agreed messages": "工作进程的回答不是约定的消息之一",
    "the worker's answer did not fit the schema": "工作进程的回答不符合约定的格式",
    "the worker's answer was incomplete": "工作进程的回答不完整",
    "gradviz could not handle this request ({})": "gradviz 无法处理这个请求（{0}）",
    "gradviz could not handle this request ({}: {})": "gradviz 无法处理这个请求（{0}：{1}）",
    # the MLP builder
    "MSE on {} classes needs output size {} (one-hot targets) or 1": "{0} 个类别上的 MSE 需要输出大小为 {1}（独热目标）或 1",
    "MSE on {} classes needs output size {} (one-hot targets)": "{0} 个类别上的 MSE 需要输出大小为 {1}（独热目标）",
    "at most {} hidden layers": "最多 {0} 个隐藏层",
    "at most {} steps for this network and data: the page keeps every op and tensor of every step (limit: {})":
        "这个网络和数据最多训练 {0} 步：页面会保留每一步的每个运算和张量 (limit: {1})",
    "binary cross-entropy needs 1 output (a logit): set output size to 1": "二元交叉熵需要 1 个输出（一个 logit）：请把输出大小设为 1",
    "binary cross-entropy needs 2 classes: use cross-entropy for more": "二元交叉熵需要 2 个类别：更多类别请用交叉熵",
    "cross-entropy needs one output per class: set output size to {}": "交叉熵需要每个类别一个输出：请把输出大小设为 {0}",
    "each hidden size must be between {} and {}, got {}": "每个隐藏层大小必须在 {0} 到 {1} 之间，得到的是 {2}",
    "hidden sizes must be whole numbers separated by commas, got {}": "隐藏层大小必须是用逗号分隔的整数，得到的是 {0}",
    "linear regression has 1 input: set input size to 1": "线性回归有 1 个输入：请把输入大小设为 1",
    "linear regression has 1 output: set output size to 1": "线性回归有 1 个输出：请把输出大小设为 1",
    "linear regression needs the MSE loss": "线性回归需要 MSE 损失",
    "the {} data set has 2 inputs: set input size to 2": "{0} 数据集有 2 个输入：请把输入大小设为 2",
    "the data set is not 2-D classification": "这个数据集不是二维分类数据",
    "the program has no 2-D inputs X and labels y": "程序中没有二维输入 X 和标签 y",
    "the program took no optimizer step": "程序没有执行任何优化器步骤",
    "the program's parameters {} do not match the form's layers {}: rebuild from the form to see the decision boundary":
        "程序的参数 {0} 与表单中的层 {1} 不一致：请用表单重新生成程序，才能看到决策边界",
}
# A sentence beside some of our messages (both languages): what to do about them.
OWN_NOTES: dict[str, tuple[str, str]] = {
    "not supported in gradviz: {}": (
        "PyTorch has this, but gradviz does not support it yet: the operations gradviz supports are listed at /ops.",
        "PyTorch 有这个功能，但 gradviz 暂不支持：gradviz 支持的运算列在 /ops。"),
}
# Messages of ours that are only a frame for others (one per error type, never matched otherwise).
OWN_BY_TYPE: dict[tuple[str, str], str] = {
    ("ConfigError", "{}: {}"): "{0}：{1}",
}


# ---- PyTorch's and Python's texts: kept verbatim, explained in both languages ----------------------------
FOREIGN: list[tuple[str, str, str]] = [
    (r"^Trying to backward through the graph a second time",
     "The first backward() freed the tensors the graph saved; call backward(retain_graph=True) the first time "
     "to walk the graph again.",
     "第一次 backward() 已经释放了计算图保存的张量；如果要再走一遍计算图，第一次调用时要写 backward(retain_graph=True)。"),
    (r"^Torch not compiled with CUDA enabled",
     "gradviz computes on the CPU: there is no GPU here. Write device-agnostic code, e.g. "
     "device = torch.device(\"cuda\" if torch.cuda.is_available() else \"cpu\").",
     "gradviz 在 CPU 上计算：这里没有 GPU。请写与设备无关的代码，例如 "
     "device = torch.device(\"cuda\" if torch.cuda.is_available() else \"cpu\")。"),
    (r"^element 0 of tensors does not require grad",
     "The tensor backward() started from does not depend on any tensor with requires_grad=True, so there is "
     "nothing to differentiate.",
     "调用 backward() 的张量不依赖任何 requires_grad=True 的张量，所以没有可以求导的东西。"),
    (r"^grad can be implicitly created only for scalar outputs",
     "backward() without an argument needs a single number (e.g. a loss); reduce the tensor first (.sum(), "
     ".mean()) or pass backward(gradient=...).",
     "不带参数的 backward() 需要一个标量（例如损失）；请先把张量归约（.sum()、.mean()），或者传入 backward(gradient=...)。"),
    (r"^a (view of a )?leaf Variable that requires grad is being used in an in-place operation",
     "A leaf that requires grad cannot be changed in place while autograd records; change it inside "
     "torch.no_grad(), or compute a new tensor.",
     "在 autograd 记录时，不能原地修改需要梯度的叶子张量；请在 torch.no_grad() 中修改它，或者计算一个新的张量。"),
    (r"^one of the variables needed for gradient computation has been modified by an inplace operation",
     "A tensor saved for backward was changed in place after it was saved, so its gradient would be wrong; "
     "use an out-of-place op (y = y * 2 instead of y *= 2).",
     "一个为反向传播保存的张量在保存之后被原地修改了，它的梯度会出错；请改用非原地运算（用 y = y * 2 代替 y *= 2）。"),
    (r"^you can only change requires_grad flags of leaf variables",
     "requires_grad can only be set on leaf tensors; use .detach() to get a tensor without history.",
     "只能给叶子张量设置 requires_grad；可以用 .detach() 得到一个没有历史的张量。"),
    (r"^Only Tensors of floating point|^only Tensors of floating point",
     "Only floating-point tensors can require gradients: write 2.0 instead of 2, or pass dtype=torch.float32.",
     "只有浮点张量才能要求梯度：请写 2.0 而不是 2，或者传入 dtype=torch.float32。"),
    (r"^The size of tensor a \(\d+\) must match the size of tensor b",
     "The two shapes cannot be broadcast together: along each dim, from the right, the sizes must be equal "
     "or one of them 1.",
     "这两个形状不能广播：从右往左看每个维度，大小必须相等或者其中一个为 1。"),
    (r"shapes cannot be multiplied",
     "In a matrix product A @ B the number of columns of A must equal the number of rows of B.",
     "矩阵乘法 A @ B 中，A 的列数必须等于 B 的行数。"),
    (r"^inconsistent tensor size",
     "Both vectors of a dot product must have the same length.", "点积的两个向量长度必须相同。"),
    (r"^Can't call numpy\(\) on Tensor that requires grad",
     "Call .detach() first: .detach().numpy().", "请先调用 .detach()：.detach().numpy()。"),
    (r"^The differentiated Tensor at index \d+ appears to not have been used in the graph",
     "autograd.grad was asked for the gradient of a tensor the output does not depend on; pass "
     "allow_unused=True to get None for it.",
     "autograd.grad 被要求计算一个输出并不依赖的张量的梯度；传入 allow_unused=True 可以让它返回 None。"),
    (r"^shape '\[.*\]' is invalid for input of size",
     "The new shape must have as many elements as the tensor.", "新的形状必须与张量的元素个数相同。"),
    (r"^index -?\d+ is out of bounds for dimension",
     "The index is outside the tensor along that dim (indices start at 0).", "下标超出了张量在该维度上的范围（下标从 0 开始）。"),
    (r"^Target -?\d+ is out of bounds",
     "A class label is outside 0 … C−1, C being the number of classes (the input's size along dim 1).",
     "某个类别标签不在 0 … C−1 之内，C 是类别数（输入在第 1 维上的大小）。"),
    (r"^Expected input batch_size",
     "The input and the target must have the same number of samples.", "输入和目标的样本数必须相同。"),
    (r"^expected target dtype to be Long",
     "Class labels must be integers (torch.long).", "类别标签必须是整数（torch.long）。"),
    (r"^mean\(\): could not infer output dtype",
     "mean() needs a floating-point tensor: write 1.0 instead of 1, or .float() first.",
     "mean() 需要浮点张量：请写 1.0 而不是 1，或者先调用 .float()。"),
    (r"^name '.*' is not defined",
     "This name was never assigned before it was used (a typo, or a variable defined later).",
     "这个名字在使用之前从未被赋值（可能是拼写错误，或者变量定义在后面）。"),
    (r"^module '.*' has no attribute", "This module has no such name: check the spelling.",
     "这个模块里没有这个名字：请检查拼写。"),
    (r"^'.*' object has no attribute", "This object has no such attribute or method: check the spelling.",
     "这个对象没有这个属性或方法：请检查拼写。"),
    (r"(^attribute '.*' of 'torch\.\w+' objects is not writable|^'torch\.\w+' object attribute '.*' is "
     r"read-only|^'torch\.Size' object (does not|doesn't) support item (assignment|deletion))",
     "This object cannot be changed (PyTorch's devices, dtypes and sizes are immutable): make a new one.",
     "这个对象不能修改（PyTorch 的 device、dtype 和 Size 都不可变）：请新建一个。"),
    (r"^unsupported operand type", "These two kinds of values cannot be combined with this operator.",
     "这两种值不能用这个运算符组合。"),
    (r"division by zero", "A division by zero.", "除以零。"),
]

BY_TYPE: dict[str, tuple[str, str]] = {
    "RuntimeError": ("PyTorch reported an error while running this line (its own text is above).",
                     "PyTorch 在运行这一行时报告了错误（上面是它的原文）。"),
    "TypeError": ("A value of the wrong type was given to a function or an operator (Python's or PyTorch's "
                  "text is above).", "函数或运算符收到了类型不对的值（上面是 Python 或 PyTorch 的原文）。"),
    "ValueError": ("A value of the right type but not an acceptable one (the original text is above).",
                   "值的类型对，但取值不可接受（上面是原文）。"),
    "IndexError": ("An index outside the tensor or the list (the original text is above).",
                   "下标超出了张量或列表的范围（上面是原文）。"),
    "KeyError": ("This key is not in the dictionary.", "字典里没有这个键。"),
    "NameError": ("A name used before it was assigned.", "使用了一个还没有赋值的名字。"),
    "AttributeError": ("This object or module has no such attribute.", "这个对象或模块没有这个属性。"),
    "SyntaxError": ("Python cannot read this line: check brackets, colons and indentation.",
                    "Python 无法解析这一行：请检查括号、冒号和缩进。"),
    "IndentationError": ("The indentation of this line does not match the block it is in.",
                         "这一行的缩进与它所在的代码块不一致。"),
    "ImportError": ("This name cannot be imported here.", "这里不能导入这个名字。"),
    "ZeroDivisionError": ("A division by zero.", "除以零。"),
    "AssertionError": ("An assert statement of the program failed.", "程序中的 assert 语句失败了。"),
    "NotImplementedError": ("This case is not implemented (the original text is above).", "这种情况没有实现（上面是原文）。"),
    "OverflowError": ("A number too large for its type.", "数值超出了其类型的范围。"),
    "UnboundLocalError": ("A local variable used before it was assigned.", "局部变量在赋值之前被使用。"),
    "RecursionError": ("Calls nested too deeply.", "调用嵌套太深。"),
    "StopIteration": ("An iterator had no more items.", "迭代器没有更多的元素了。"),
    "JSONDecodeError": ("The request is not valid JSON.", "请求不是合法的 JSON。"),
    "ValidationError": ("The request's fields have the wrong types or values.", "请求的字段类型或取值不对。"),
}
GENERIC = ("The original message is above.", "上面是原始的错误信息。")


# ---- matching ------------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def _patterns() -> list[tuple[re.Pattern, str, str | None]]:
    """(regex, Chinese, error type or None), the most specific (most literal text) first."""
    out = [(k, v, None) for k, v in OWN.items()] + [(k, v, t) for (t, k), v in OWN_BY_TYPE.items()]
    out.sort(key=lambda kv: -len(kv[0].replace("{}", "")))
    return [(re.compile("(.*?)".join(re.escape(p) for p in k.split("{}")) + r"\Z", re.S), v, t) for k, v, t in out]


def translate(message: str, type_: str | None = None, depth: int = 0) -> str | None:
    """The Chinese of one of gradviz's own messages, or None (not ours)."""
    if depth > 3 or not message:
        return None
    for pattern, zh, only in _patterns():
        if only is not None and only != type_:
            continue
        m = pattern.match(message)
        if m is None:
            continue
        parts = [translate(g, None, depth + 1) or g for g in m.groups()]
        if only is not None and all(p == g for p, g in zip(parts, m.groups())):
            continue  # a frame whose content is not ours: no translation
        out = zh
        for i, p in enumerate(parts):
            out = out.replace("{" + str(i) + "}", p)
        return out
    return None


def explain_error(type_: str, message: str) -> dict:
    """``{"gradviz": bool, "zh": Chinese of our own message or None, "note": {"en", "zh"} or None}``: our
    messages are translated; PyTorch's and Python's get a sentence beside their verbatim text."""
    zh = translate(message or "", type_)
    if zh is not None:
        return {"gradviz": True, "zh": zh, "note": _own_note(message)}
    for pattern, en, zh_note in _foreign():
        if pattern.search(message or ""):
            return {"gradviz": False, "zh": None, "note": {"en": en, "zh": zh_note}}
    en, zh_note = BY_TYPE.get(type_, GENERIC)
    return {"gradviz": False, "zh": None, "note": {"en": en, "zh": zh_note}}


@lru_cache(maxsize=1)
def _foreign() -> list[tuple[re.Pattern, str, str]]:
    return [(re.compile(p), en, zh) for p, en, zh in FOREIGN]


def _own_note(message: str) -> dict | None:
    for key, (en, zh) in OWN_NOTES.items():
        if re.fullmatch("(.*?)".join(re.escape(p) for p in key.split("{}")), message, re.S):
            return {"en": en, "zh": zh}
    return None
