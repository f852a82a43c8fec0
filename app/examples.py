"""The examples of ``GET /api/examples``, as data: together they tell the story of autograd.

Each runs without error except ``backward-twice``, which shows PyTorch's error on purpose.
"""

from __future__ import annotations


def _ex(id: str, en: str, zh: str, source: str, variables: dict | None = None,
        about_en: str | None = None, about_zh: str | None = None) -> dict:
    out = {"id": id, "title": {"en": en, "zh": zh}, "source": source.strip("\n") + "\n",
           "variables": variables}
    out["description"] = {"en": about_en, "zh": about_zh} if about_en and about_zh else None
    return out


def _var(value, requires_grad: bool = True) -> dict:
    return {"value": value, "requires_grad": requires_grad}


EXAMPLES: list[dict] = [
    _ex("add-mul", "Add then multiply: (a + b) * c", "先加后乘：(a + b) * c",
        "(a + b) * c",
        {"a": _var(2.0), "b": _var(-3.0), "c": _var(10.0)},
        "An expression with free names: set their values in the table, then step through backward.",
        "带自由变量的表达式：在表格中设定它们的值，然后逐步观察反向传播。"),
    _ex("square", "A square: (a·b + 1)²", "平方：(a·b + 1)²",
        "(a * b + 1) ** 2",
        {"a": _var(2.0), "b": _var(3.0)},
        "With a = 2 and b = 3: dL/da = 2(ab + 1)·b = 42.",
        "当 a = 2、b = 3 时：dL/da = 2(ab + 1)·b = 42。"),
    _ex("neuron", "Logistic neuron with squared error", "逻辑神经元与平方误差", """
x = torch.tensor([2.0], requires_grad=True)
w = torch.tensor([3.0], requires_grad=True)
b = torch.tensor([1.0], requires_grad=True)
z = x * w + b
a = torch.sigmoid(z)
loss = (a - 1.0) ** 2
loss.backward()
print(w.grad)
""", None, "One neuron a = σ(x·w + b) and the loss (a − 1)²: the chain rule, one node at a time.",
        "一个神经元 a = σ(x·w + b) 与损失 (a − 1)²：链式法则，一次一个节点。"),
    _ex("fan-out", "A tensor used twice: gradients add up", "一个张量被用了两次：梯度相加", """
x = torch.tensor(3.0, requires_grad=True)
y = x * x + 2 * x   # x feeds three inputs
y.backward()
print(x.grad)       # 2x + 2 = 8: the three gradients are summed
""", None, "Where a tensor feeds several ops, the gradients that come back along each edge are summed.",
        "当一个张量流入多个运算时，沿各条边传回的梯度会被相加。"),
    _ex("broadcast", "Broadcasting: the gradient is summed back", "广播：梯度被求和回原形状", """
x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
b = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
y = (x + b).sum()
y.backward()
print(b.grad)   # b was added to both rows: its gradient is summed over them
""", None, "b of shape [3] is broadcast over 2 rows; its gradient is summed back to shape [3].",
        "形状为 [3] 的 b 被广播到 2 行；它的梯度被求和回形状 [3]。"),
    _ex("mlp", "Two-layer MLP with ReLU and cross-entropy", "带 ReLU 与交叉熵的两层感知机", """
torch.manual_seed(0)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 5)
        self.fc2 = nn.Linear(5, 3)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


model = MLP()
x = torch.randn(4, 3)
y = torch.tensor([0, 2, 1, 2])
loss = F.cross_entropy(model(x), y)
loss.backward()
print(loss)
print(model.fc1.weight.grad)
""", None, "A batch of 4 through Linear → ReLU → Linear, then cross-entropy: gradients for every weight.",
        "4 个样本经过 Linear → ReLU → Linear，再计算交叉熵：每个权重都得到梯度。"),
    _ex("linear-regression", "Linear regression trained with SGD", "用 SGD 训练线性回归", """
torch.manual_seed(0)
x = torch.linspace(0, 1, 20).reshape(20, 1)
y = 2 * x + 1 + 0.05 * torch.randn(20, 1)

model = nn.Linear(1, 1)
loss_fn = nn.MSELoss()
opt = optim.SGD(model.parameters(), lr=0.5)
for epoch in range(100):
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
print(model.weight.item(), model.bias.item())   # close to 2 and 1
""", None, "100 epochs on y = 2x + 1 + noise: move between iterations and watch the loss fall.",
        "在 y = 2x + 1 + 噪声 上训练 100 轮：在各次迭代之间切换，观察损失下降。"),
    _ex("accumulation", "Gradient accumulation over micro-batches", "在微批次上累积梯度", """
w = torch.tensor([0.5, -0.5], requires_grad=True)
batches = [
    (torch.tensor([[1.0, 2.0], [0.0, 1.0]]), torch.tensor([1.0, 0.0])),
    (torch.tensor([[2.0, 1.0], [1.0, 1.0]]), torch.tensor([2.0, 1.0])),
    (torch.tensor([[0.0, 3.0], [1.0, 0.0]]), torch.tensor([0.0, 1.0])),
]
for x, y in batches:
    loss = ((x @ w - y) ** 2).mean() / len(batches)
    loss.backward()   # no zero_grad in between: w.grad collects all three
    print(w.grad)
""", None, "Three backward passes, one per micro-batch, add into the same w.grad (before → after).",
        "三次反向传播（每个微批次一次）累加到同一个 w.grad 中（之前 → 之后）。"),
    _ex("forget-zero-grad", "Forgetting zero_grad", "忘记调用 zero_grad", """
w = torch.tensor(1.0, requires_grad=True)
for step in range(3):
    loss = (w * 2.0 - 4.0) ** 2
    loss.backward()
    print(step, w.grad)   # -8, -15.4, -21.5: old gradients are still there
    with torch.no_grad():
        w -= 0.01 * w.grad
# the fix: w.grad.zero_() (or optimizer.zero_grad()) before each backward
""", None, "backward() adds into .grad: without zeroing it, each step uses the sum of all past gradients.",
        "backward() 会累加到 .grad：如果不清零，每一步用的都是过去所有梯度之和。"),
    _ex("backward-twice", "A second backward without retain_graph (error)",
        "不带 retain_graph 的第二次反向传播（报错）", """
x = torch.tensor(2.0, requires_grad=True)
y = x ** 3
y.backward()
print(x.grad)
y.backward()   # error: the first backward freed the saved tensors
""", None, "The first pass frees what the graph saved for backward, so a second pass fails: see the error.",
        "第一次反向传播会释放计算图保存的张量，所以第二次会失败：请看错误信息。"),
    _ex("retain-graph", "A second backward with retain_graph=True",
        "带 retain_graph=True 的第二次反向传播", """
x = torch.tensor(2.0, requires_grad=True)
y = x ** 3
y.backward(retain_graph=True)
print(x.grad)   # 3x² = 12
y.backward()    # allowed: the graph was kept
print(x.grad)   # 24: the second pass added to the first
""", None, "retain_graph=True keeps the saved tensors, so the graph can be walked again; gradients add up.",
        "retain_graph=True 保留了保存的张量，计算图可以再走一遍；梯度会相加。"),
    _ex("no-grad", "torch.no_grad(): nothing is recorded", "torch.no_grad()：不记录计算图", """
w = torch.tensor([1.0, 2.0], requires_grad=True)
x = torch.tensor([3.0, 4.0])
with torch.no_grad():
    y_eval = (w * x).sum()   # evaluation only: no graph, no grad_fn
print(y_eval.requires_grad)
y = (w * x).sum()
y.backward()
print(w.grad)
""", None, "Inside no_grad the ops build no graph: only the second computation appears in the drawing.",
        "在 no_grad 中的运算不会构建计算图：图中只出现第二次计算。"),
    _ex("detach", "detach(): cutting the graph", "detach()：切断计算图", """
x = torch.tensor(3.0, requires_grad=True)
y = x * x
z = y.detach() * x   # y.detach() is a constant for autograd
z.backward()
print(x.grad)        # 9 (the value of y), not 27
""", None, "detach() returns the same values without history: no gradient flows back through it.",
        "detach() 返回相同的值但没有历史：梯度不会经过它回传。"),
    _ex("retain-grad", "retain_grad() on an intermediate tensor", "对中间张量调用 retain_grad()", """
x = torch.tensor(2.0, requires_grad=True)
h = x * 3
h.retain_grad()   # keep the gradient of this non-leaf tensor
y = h ** 2
y.backward()
print(h.grad)     # dy/dh = 2h = 12
print(x.grad)     # dy/dx = 12 · 3 = 36
""", None, "Only leaves keep .grad by default; retain_grad() keeps it for an intermediate result too.",
        "默认只有叶子张量保留 .grad；retain_grad() 让中间结果也保留梯度。"),
    _ex("dynamic-graph", "A loop and an if: the graph follows the input", "循环与条件：计算图随输入而变", """
x = torch.tensor(1.5, requires_grad=True)   # try 0.2 or -3.0: the graph changes
y = x
steps = 0
while abs(y.item()) < 10:
    y = y * 2
    steps += 1
if y.item() > 0:
    out = y ** 2
else:
    out = -y
out.backward()
print(steps, x.grad)
""", None, "Python control flow decides which ops run, so each input draws its own graph.",
        "Python 的控制流决定执行哪些运算，所以不同的输入会画出不同的计算图。"),
    _ex("vanishing", "A deep sigmoid chain: vanishing gradients", "深层 sigmoid 链：梯度消失", """
x = torch.tensor(1.0, requires_grad=True)
h = x
for i in range(20):
    h = torch.sigmoid(h)   # each layer multiplies the gradient by σ'(h) ≤ 0.25
h.backward()
print(x.grad)              # about 1e-13: almost nothing reaches x
""", None, "Step through backward and watch the upstream gradient shrink at every sigmoid.",
        "逐步观察反向传播：每经过一个 sigmoid，上游梯度都在变小。"),
    _ex("hook", "A tensor hook that doubles a gradient", "把梯度加倍的张量钩子", """
x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
y = x * x
def double(grad):
    print("gradient reaching y:", grad)
    return grad * 2        # returning a tensor replaces the gradient
y.register_hook(double)
loss = y.sum()
loss.backward()
print(x.grad)              # 2·(2x) = 4x
""", None, "The hook runs as a step of the backward pass, before y's node uses the gradient.",
        "钩子是反向传播中的一步：在 y 的节点使用梯度之前运行。"),
    _ex("custom-function", "Your own autograd.Function", "自定义 autograd.Function", """
class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x ** 2

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = Cube.apply(x)
loss = y.sum()
loss.backward()
print(y.grad_fn.name(), x.grad)
""", None, "Cube.backward, written in the program, is a node of the walk like the built-in ones.",
        "程序里写的 Cube.backward 和内置运算一样，是反向传播中的一个节点。"),
]




def _lens(lens: str, id: str, en: str, zh: str, source: str, about_en: str, about_zh: str) -> dict:
    """An example that opens one of the course views (see app/worker/lenses/)."""
    example = _ex(id, en, zh, source, None, about_en, about_zh)
    example["lens"] = lens
    return example


# The course views, each opened by its examples.
EXAMPLES += [
    _lens("modes", "forward-reverse",
          "Forward vs reverse mode: 4 inputs, 1 output",
          "前向模式与反向模式：4 个输入、1 个输出", """
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([0.5, -1.0], requires_grad=True)
y = torch.tanh(x * w).sum()   # one number from four
y.backward()                  # reverse mode: one pass gives all four gradients
print(x.grad, w.grad)
""", "Reverse mode needs one backward pass for all four gradients; forward mode needs four passes, "
         "one per input number.",
          "反向模式一次反向传播就得到全部四个梯度；前向模式需要四遍，每个输入数一遍。"),
    _lens("orders", "second-derivative",
          "Second derivative of sin x",
          "sin x 的二阶导数", """
x = torch.tensor(1.0, requires_grad=True)
y = torch.sin(x)
dy, = torch.autograd.grad(y, x, create_graph=True)   # cos x, with a graph of its own
dy.backward()                                        # d(cos x)/dx = −sin x
print(dy.item(), x.grad)
""", "With create_graph=True the first backward records its own nodes (cos x · 1); the second backward "
         "walks them.",
          "使用 create_graph=True 时，第一次反向传播会记录自己的节点（cos x · 1）；"
          "第二次反向传播走过它们。"),
    _lens("compare", "new-graph",
          "A new graph every forward pass",
          "每次前向都是一张新的图", """
w = torch.tensor(1.5, requires_grad=True)

def f(x):
    h = x * w
    while h.abs().item() < 4:   # the loop runs as often as this input needs
        h = h * 2
    if h.item() > 0:
        return h ** 2
    return -h

for x in [torch.tensor(1.0), torch.tensor(-0.5)]:
    y = f(x)          # a new graph: new grad_fn objects, the same w
    y.backward()
    print(y.item(), w.grad)
""", "Two forward passes of the same code: w is the same object, every op node is new, and the "
         "loop and the if made the two graphs differ.",
          "同一段代码的两次前向：w 是同一个对象，每个运算节点都是新的，"
          "循环和条件让两张图不同。"),
    _lens("heat", "deep-sigmoid",
          "A deep sigmoid net: vanishing gradients",
          "深层 sigmoid 网络：梯度消失", """
torch.manual_seed(6)
layers = []
for i in range(5):
    layers += [nn.Linear(4, 4), nn.Sigmoid()]
net = nn.Sequential(*layers, nn.Linear(4, 1))
x = torch.randn(20, 4)
loss = net(x).pow(2).mean()
loss.backward()
for i in range(0, 10, 2):   # smaller and smaller towards the input
    print(i // 2, net[i].weight.grad.norm().item())
""", "Each sigmoid multiplies the gradient by at most 0.25: the layers near the input get almost "
         "nothing.",
          "每个 sigmoid 都把梯度乘以不超过 0.25 的数：靠近输入的层几乎得不到梯度。"),
    _lens("heat", "relu-he",
          "The same net with ReLU and He init",
          "同一网络改用 ReLU 与 He 初始化", """
torch.manual_seed(6)
layers = []
for i in range(5):
    lin = nn.Linear(4, 4)
    nn.init.kaiming_uniform_(lin.weight, nonlinearity="relu")   # He init: keeps the variance
    layers += [lin, nn.ReLU()]
net = nn.Sequential(*layers, nn.Linear(4, 1))
x = torch.randn(20, 4)
loss = net(x).pow(2).mean()
loss.backward()
for i in range(0, 10, 2):   # about the same size in every layer
    print(i // 2, net[i].weight.grad.norm().item())
""", "ReLU passes the gradient unchanged where it is active and He init keeps its size: every layer "
         "learns.",
          "ReLU 在激活处原样传递梯度，He 初始化保持梯度大小：每一层都能学习。"),
    _lens("memory", "memory-backward",
          "Memory: backward frees the saved tensors",
          "内存：反向传播释放保存的张量", """
x = torch.randn(16, requires_grad=True)
y = (x.exp() * x.sin()).sum()
y.backward()                       # frees what exp, sin and mul saved, node by node
z = (x.exp() * x.sin()).sum()
z.backward(retain_graph=True)      # keeps them: a second backward could run
with torch.no_grad():
    e = (x.exp() * x.sin()).sum()  # no graph: nothing is saved
print(y.item(), e.item())
""", "The chart rises as ops save tensors and falls as backward frees them, except with "
         "retain_graph=True; under no_grad nothing is saved.",
          "运算保存张量时曲线上升，反向传播释放它们时下降（retain_graph=True 除外）；"
          "在 no_grad 下什么也不保存。"),
    _lens("memory", "memory-losses",
          "Memory: keeping losses keeps their graphs",
          "内存：保存 loss 会保留它们的计算图", """
torch.manual_seed(0)
model = nn.Linear(8, 8)
loss = model(torch.randn(32, 8)).pow(2).mean()
loss.backward()                    # a training step: backward frees what the graph kept
losses = []
for i in range(4):                 # evaluation without torch.no_grad()
    x = torch.randn(32, 8)
    loss = model(x).pow(2).mean()
    losses.append(loss)            # keeps each loss's whole graph alive
for i in range(4):
    x = torch.randn(32, 8)
    loss = model(x).pow(2).mean()
    print(loss.item())             # a number: the old graph is freed when loss is rebound
""", "losses.append(loss) keeps every graph: the memory grows each iteration. loss.item() keeps a "
         "number only.",
          "losses.append(loss) 会保留每一张计算图：内存每轮都在增长。loss.item() 只保留一个数。"),
]

def example_source(example_id: str) -> str:
    """The program of one example (tests run the same teaching programs the page offers)."""
    return next(e["source"] for e in EXAMPLES if e["id"] == example_id)
