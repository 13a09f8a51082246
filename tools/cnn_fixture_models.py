"""The convolutional-network fixtures of tools/export_fixtures.py (kept apart to keep that file
short). Each covers a set of ATen op names in both .pt2 forms: the plain export keeps composite
ops (conv2d, batch_norm, layer_norm, group_norm, max_pool2d, chunk/split), the core-ATen form
decomposes them (convolution, _native_batch_norm_legit_no_training, native_layer_norm,
native_group_norm, max_pool2d_with_indices, mean.dim, split_with_sizes, ...).

Weights are small and BatchNorm statistics are randomized, so folding BatchNorm into a conv is
really exercised (default statistics make it the identity).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


def randomize_batch_norms(model: nn.Module) -> nn.Module:
    for m in model.modules():
        if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
            with torch.no_grad():
                m.running_mean.normal_(0.0, 0.1)
                m.running_var.uniform_(0.5, 2.0)
                m.weight.uniform_(0.5, 1.5)
                m.bias.normal_(0.0, 0.1)
    return model


class CnnBlock(nn.Module):
    """A ResNet stem and basic block: conv7x7/2 (no bias) + BN + relu, max pool 3/2/1, two conv3x3
    + BN with a residual add then relu, a 1x1 strided downsample, global average pool, flatten,
    linear. Input [2, 3, 32, 32]."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 7, stride=2, padding=3, bias=False)
        self.bn0 = nn.BatchNorm2d(8)
        self.conv1 = nn.Conv2d(8, 16, 3, stride=2, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 16, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(16)
        self.down = nn.Conv2d(8, 16, 1, stride=2, bias=False)
        self.bn_down = nn.BatchNorm2d(16)
        self.fc = nn.Linear(16, 10)
        randomize_batch_norms(self)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.max_pool2d(torch.relu(self.bn0(self.stem(x))), 3, stride=2, padding=1)
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        y = torch.relu(y + self.bn_down(self.down(x)))
        y = F.adaptive_avg_pool2d(y, 1)
        return self.fc(torch.flatten(y, 1))


class CnnMixed(nn.Module):
    """The other conv variants and CNN ops: depthwise (relu6), grouped and dilated convs,
    padding='same', hardswish, a squeeze-and-excitation gate (mean, 1x1 convs, hardsigmoid, mul),
    avg_pool2d with ceil_mode and count_include_pad=False, adaptive max pool to 3x3, a transposed
    conv with output_padding, nearest and bilinear upsampling (align_corners both ways), constant
    padding and cat. Input [1, 8, 15, 17] (odd sizes catch off-by-one windows)."""

    def __init__(self) -> None:
        super().__init__()
        self.depthwise = nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.bn = nn.BatchNorm2d(8)
        self.grouped = nn.Conv2d(8, 12, 3, padding=2, dilation=2, groups=4)
        self.same = nn.Conv2d(12, 12, 4, padding="same")
        self.se_reduce = nn.Conv2d(12, 4, 1)
        self.se_expand = nn.Conv2d(4, 12, 1)
        self.project = nn.Conv2d(12, 8, 1)
        self.up = nn.ConvTranspose2d(8, 6, 3, stride=2, padding=1, output_padding=1)
        randomize_batch_norms(self)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        y = F.relu6(self.bn(self.depthwise(x)))
        y = F.hardswish(self.grouped(y))
        y = self.same(y)
        gate = F.hardsigmoid(self.se_expand(torch.relu(self.se_reduce(y.mean((2, 3), keepdim=True)))))
        y = self.project(y * gate) + x
        pooled = F.avg_pool2d(y, 3, stride=2, ceil_mode=True, count_include_pad=False, padding=1)
        peaks = F.adaptive_max_pool2d(y, 3)
        up = self.up(pooled)
        near = F.interpolate(pooled, scale_factor=2.0, mode="nearest")
        bil = F.interpolate(y, size=(9, 11), mode="bilinear", align_corners=False)
        bil_ac = F.interpolate(y, size=(9, 11), mode="bilinear", align_corners=True)
        joined = torch.cat([F.pad(near, (1, 0, 0, 1), value=0.5), F.pad(up, (0, 1, 1, 0))], dim=1)
        return joined, peaks, bil + bil_ac


class CnnNormsLists(nn.Module):
    """ConvNeXt's channel layer norm (permute, layer_norm over channels, permute back), a group
    norm, chunk and split with their list outputs, and ShuffleNet's channel shuffle
    (view/transpose/contiguous/view). Input [2, 8, 6, 5]."""

    def __init__(self) -> None:
        super().__init__()
        self.ln = nn.LayerNorm(8, eps=1e-6)
        self.gn = nn.GroupNorm(4, 8)
        self.conv = nn.Conv2d(4, 4, 3, padding=1)
        with torch.no_grad():
            self.ln.weight.uniform_(0.5, 1.5)
            self.ln.bias.normal_(0.0, 0.1)
            self.gn.weight.uniform_(0.5, 1.5)
            self.gn.bias.normal_(0.0, 0.1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        y = self.ln(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)
        y = self.gn(y)
        a, b = y.chunk(2, dim=1)
        y = torch.cat([a, self.conv(b)], dim=1)
        n, c, h, w = y.shape
        shuffled = y.view(n, 2, c // 2, h, w).transpose(1, 2).contiguous().view(n, c, h, w)
        p, q, r = torch.split(shuffled, [2, 2, 4], dim=1)
        return p * q, r[:, 1:, :, ::2], F.layer_norm(x, (6, 5))
