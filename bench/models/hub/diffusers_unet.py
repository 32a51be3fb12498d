"""A stock diffusers UNet2DModel at CI size (random weights from the config: no
download), trained as diffusers' examples train it: predict the noise added to
a sample at a timestep, mean squared error. The factory returns
(model, (noisy_sample, timestep, noise), loss_fn): the model takes the first two
inputs, loss_fn(model output, noise) is the loss (docs/models.md)."""
import torch
import torch.nn.functional as F
from diffusers import UNet2DModel


def loss_fn(out, noise):
    return F.mse_loss(out.sample, noise)


def ci():
    torch.manual_seed(0)
    model = UNet2DModel(sample_size=16, in_channels=3, out_channels=3, layers_per_block=1,
                        block_out_channels=(16, 32), down_block_types=("DownBlock2D", "AttnDownBlock2D"),
                        up_block_types=("AttnUpBlock2D", "UpBlock2D"), norm_num_groups=8,
                        attention_head_dim=8).train()
    g = torch.Generator().manual_seed(0)
    sample = torch.randn((2, 3, 16, 16), generator=g)
    noise = torch.randn((2, 3, 16, 16), generator=g)
    timestep = torch.tensor([10, 500])
    return model, (sample, timestep, noise), loss_fn
