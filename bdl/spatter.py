"""MNIST-C's "spatter" corruption (Mu & Gilmer 2019): the recipe and its parameters.

:mod:`bdl.data` builds the corrupted MNIST test set with it when the
official MNIST-C arrays are not given. Anything changed here changes the
bytes of that set: bump ``bdl.data.SPATTER_RECIPE`` with it.
"""

import numpy as np

# MNIST-C's spatter parameters (Mu & Gilmer 2019, corruptions.py), per
# severity: (loc, scale, sigma, threshold, mask_sigma). MNIST-C uses 4.
SPATTER_PARAMS = {
    1: (0.65, 0.3, 4, 0.69, 0.6),
    2: (0.65, 0.3, 3, 0.68, 0.6),
    3: (0.65, 0.3, 2, 0.68, 0.5),
    4: (0.65, 0.3, 1, 0.65, 1.5),
    5: (0.67, 0.4, 1, 0.65, 1.5),
}
SPATTER_SEVERITY = 4
MUD = 63 / 255  # MNIST-C's mud grey


def spatter_mask(shape, severity=SPATTER_SEVERITY, rng=None):
    """Return MNIST-C's spatter mask for images of ``shape`` (..., height, width).

    Float32 in [0, 1]: 0 where the image stays as it is, otherwise at least
    0.8 (the share of mud grey). ``rng`` is a numpy Generator or a seed; the
    noise for the whole batch is drawn in one call.
    """
    # Here, not at the top: every process that reads the data imports this module (each grading worker
    # and kernel among them), and SciPy's ndimage takes about 0.4 s to load; only building the set needs it.
    from scipy.ndimage import gaussian_filter

    loc, scale, sigma, threshold, mask_sigma = SPATTER_PARAMS[severity]
    rng = np.random.default_rng(rng)
    lead = (0,) * (len(shape) - 2)  # never blur across images of a batch
    liquid = gaussian_filter(rng.normal(loc, scale, size=shape), lead + (sigma, sigma), mode="nearest")
    # The recipe also zeroes the liquid below the threshold; that cannot
    # change which pixels lie above it, so only the mask is computed. The
    # mask is blurred in float32, as MNIST-C does (and 4x faster than float64).
    mask = gaussian_filter((liquid > threshold).astype(np.float32), lead + (mask_sigma, mask_sigma), mode="nearest")
    mask[mask < 0.8] = 0
    return mask


def spatter(images, severity=SPATTER_SEVERITY, rng=None):
    """Return MNIST-C "spatter" versions of uint8 ``images`` (N, 28, 28), as uint8.

    Mud grey (63/255) covers the image where :func:`spatter_mask` is non-zero;
    other pixels are unchanged.
    """
    images = np.asarray(images)
    if images.dtype != np.uint8 or images.ndim != 3:
        raise ValueError(f"expected uint8 images (N, height, width), got {images.dtype} {images.shape}")
    mask = spatter_mask(images.shape, severity, rng)
    # Where the mask is 0 the recipe gives x * 1 + 0, which rounds back to the
    # input exactly, so only the masked pixels are computed.
    hit = mask > 0
    m = mask[hit].astype(np.float64)
    mixed = np.clip(images[hit] / 255.0 * (1 - m) + MUD * m, 0, 1)
    out = images.copy()
    out[hit] = np.rint(mixed * 255)
    return out
