"""The decision-boundary helpers: the NumPy forward matches torch's nn, predictions read the loss."""

import numpy as np
import pytest
import torch

from app.mlp.boundary import BoundaryError, check_shapes, forward, grid_points, predict, snapshot_steps
from app.mlp.builder import plan
from app.schemas import MlpConfig


@pytest.mark.parametrize("activation, module", [("relu", torch.nn.ReLU), ("tanh", torch.nn.Tanh),
                                                ("sigmoid", torch.nn.Sigmoid)])
def test_forward_matches_torch(activation, module):
    torch.manual_seed(1)
    net = torch.nn.Sequential(torch.nn.Linear(2, 5), module(), torch.nn.Linear(5, 3)).double()
    weights = [p.detach().numpy().copy() for p in net.parameters()]
    x = np.random.default_rng(0).normal(size=(7, 2))
    want = net(torch.from_numpy(x)).detach().numpy()
    np.testing.assert_allclose(forward(weights, activation, x), want, rtol=1e-12, atol=1e-12)


def test_predict_reads_each_loss():
    ce = plan(MlpConfig(dataset="blobs", classes=3, output_size=3))
    cls, conf = predict(np.array([[0.0, 2.0, 1.0], [5.0, 0.0, 0.0]]), ce)
    assert cls.tolist() == [1, 0] and np.all((conf > 1 / 3) & (conf <= 1))
    bce = plan(MlpConfig(loss="bce", output_size=1))
    cls, conf = predict(np.array([[-1.0], [2.0]]), bce)  # logits: class 1 above 0
    assert cls.tolist() == [0, 1] and np.all(conf > 0.5)
    mse1 = plan(MlpConfig(loss="mse", output_size=1))
    cls, _ = predict(np.array([[0.4], [0.6]]), mse1)  # targets 0/1: class 1 above 0.5
    assert cls.tolist() == [0, 1]


def test_snapshots_and_shapes():
    assert snapshot_steps(0, 5) == [0]
    assert snapshot_steps(3, 10) == [0, 1, 2, 3]
    assert snapshot_steps(500, 5) == [0, 125, 250, 375, 500]
    p = plan(MlpConfig(hidden="4"))
    check_shapes([np.zeros((4, 2)), np.zeros(4), np.zeros((2, 4)), np.zeros(2)], p)
    with pytest.raises(BoundaryError, match="do not match"):
        check_shapes([np.zeros((5, 2)), np.zeros(5), np.zeros((2, 5)), np.zeros(2)], p)
    cells, xr, yr = grid_points(np.array([[0.0, 0.0], [1.0, 2.0]]), 4)
    assert cells.shape == (16, 2) and xr == [-0.5, 1.5] and yr == [-0.5, 2.5]
    assert cells[0].tolist() == [-0.5, -0.5] and cells[-1].tolist() == [1.5, 2.5]  # bottom row first
