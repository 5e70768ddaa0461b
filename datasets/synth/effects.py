"""Photometric effects applied to a rendered scene: glare, lighting, white balance, blur, noise.

All take and return float32 BGR images in 0-255 and draw their randomness from the scene's
generator.
"""

from __future__ import annotations

import cv2
import numpy as np

Rng = np.random.Generator


def specular_glare(rng: Rng, img: np.ndarray, glossy: np.ndarray) -> np.ndarray:
    """A lamp reflected on the glossy tile faces (``glossy``: 0-1 mask of face pixels)."""
    h, w = img.shape[:2]
    out = img
    for _ in range(int(rng.integers(1, 3))):
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        sx, sy = rng.uniform(0.03, 0.25) * w, rng.uniform(0.03, 0.25) * h
        xs = ((np.arange(w, dtype=np.float32) - cx) / sx) ** 2
        ys = ((np.arange(h, dtype=np.float32) - cy) / sy) ** 2
        blob = np.exp(-0.5 * (ys[:, None] + xs[None, :]))
        strength = float(rng.uniform(40, 170))
        out = out + (strength * blob * glossy)[..., None]
    return out


def lighting(rng: Rng, img: np.ndarray) -> np.ndarray:
    """Uneven light (a gradient and vignetting), exposure and white balance."""
    h, w = img.shape[:2]
    sh, sw = max(2, h // 8), max(2, w // 8)  # a smooth field: compute small, scale up
    yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
    yy, xx = yy * h / sh, xx * w / sw
    a = rng.uniform(0, 2 * np.pi)
    grad = (np.cos(a) * (xx / w - 0.5) + np.sin(a) * (yy / h - 0.5)) * rng.uniform(0, 0.6)
    r2 = ((xx / w - 0.5) ** 2 + (yy / h - 0.5) ** 2) * 2
    vignette = 1 - rng.uniform(0, 0.45) * r2
    gain = (1 + grad) * vignette * rng.uniform(0.65, 1.25)
    gain = cv2.resize(gain.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    balance = np.array([rng.uniform(0.8, 1.15), 1.0, rng.uniform(0.8, 1.2)], np.float32)
    out = img * gain[..., None] * balance
    gamma = rng.uniform(0.8, 1.25)
    out = 255 * (np.clip(out, 0, 255) / 255) ** gamma
    contrast = rng.uniform(0.8, 1.2)
    return np.asarray((out - 128) * contrast + 128, np.float32)


def blur(rng: Rng, img: np.ndarray) -> np.ndarray:
    kind = rng.random()
    if kind < 0.45:
        return cv2.GaussianBlur(img, (0, 0), float(rng.uniform(0.3, 1.4)))
    if kind < 0.6:  # hand shake
        n = int(rng.integers(3, 8))
        k = np.zeros((n, n), np.float32)
        k[n // 2, :] = 1 / n
        rot = cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), float(rng.uniform(0, 180)), 1)
        kr = cv2.warpAffine(k, rot, (n, n))
        return cv2.filter2D(img, -1, (kr / max(1e-6, float(kr.sum()))).astype(np.float32))
    if kind < 0.75:  # a small sensor upscaled
        h, w = img.shape[:2]
        s = float(rng.uniform(0.4, 0.8))
        small = cv2.resize(
            img, (max(8, int(w * s)), max(8, int(h * s))), interpolation=cv2.INTER_AREA
        )
        return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    return img


def noise(rng: Rng, img: np.ndarray) -> np.ndarray:
    h, w = img.shape[:2]
    sigma = float(rng.uniform(0, 7))
    out = img + rng.standard_normal((h, w, 1)).astype(np.float32) * sigma
    if rng.random() < 0.3:
        out = out + rng.standard_normal((h, w, 3)).astype(np.float32) * sigma * 0.5
    return np.asarray(out, np.float32)


def photometric(rng: Rng, img: np.ndarray, glossy: np.ndarray) -> np.ndarray:
    if rng.random() < 0.55:
        img = specular_glare(rng, img, glossy)
    img = lighting(rng, img)
    img = blur(rng, img)
    return noise(rng, img)
