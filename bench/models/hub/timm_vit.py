"""A stock timm VisionTransformer at CI size (timm.create_model, pretrained=False:
random weights, no download), with cross entropy on class labels: the factory
returns (model, (images, labels), F.cross_entropy) (docs/models.md)."""
import timm
import torch
import torch.nn.functional as F


def ci():
    torch.manual_seed(0)
    model = timm.create_model("vit_tiny_patch16_224", pretrained=False, img_size=32, patch_size=8, embed_dim=32,
                              depth=2, num_heads=2, mlp_ratio=2.0, num_classes=10).train()
    g = torch.Generator().manual_seed(0)
    images = torch.randn((8, 3, 32, 32), generator=g)
    labels = torch.randint(0, 10, (8,), generator=g)
    return model, (images, labels), F.cross_entropy
