# Older tutorials: the typed constructors and Variable's removed volatile flag
import torch
from torch.autograd import Variable

x = torch.FloatTensor([[1, 2], [3, 4]])
print(x, x.dtype)
idx = torch.LongTensor([1.7, 0.2])
print(idx, idx.dtype)
print(torch.FloatTensor(2, 3).shape, torch.DoubleTensor([1]).dtype, torch.FloatTensor().shape)
print(isinstance(x, torch.FloatTensor), isinstance(idx, torch.FloatTensor))
v = Variable(torch.ones(2), volatile=True)
print(v.requires_grad)
w = torch.randn(size=(2, 2), requires_grad=True)
print(w.shape, torch.zeros(size=(1, 3)))
torch.FloatTensor(torch.tensor([1, 2]))
