# Device-agnostic code: everything stays on the CPU here
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(device, torch.cuda.is_available())
x = torch.ones(2, 3, device=device)
model = nn.Linear(3, 1).to(device)
print(x.device, next(model.parameters()).device)
print(x.to(device).device, x.cpu().device, device.type)
print(torch.device("cpu") == x.device)
