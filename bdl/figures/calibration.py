"""The reliability diagram of the calibration notebook."""

import matplotlib.pyplot as plt
import numpy as np


def plot_reliability_diagram(accuracy, confidence, count, title, axes=None, label="model"):
    """Draw a reliability diagram above the share of samples in each confidence bin.

    ``accuracy``, ``confidence`` and ``count`` hold one value per equal-width
    bin of [0, 1] (empty bins have count 0 and are not drawn). The top panel
    shows each bin's accuracy as a bar, the gap to its mean confidence in red
    and the diagonal of perfect calibration; the bottom panel the share of
    samples per bin. Pass ``axes`` (a top and a bottom axis) to draw into an
    existing figure; otherwise a new figure is shown.
    """
    accuracy, confidence, count = (np.asarray(a, dtype=float) for a in (accuracy, confidence, count))
    num_bins = count.size
    edges = np.linspace(0.0, 1.0, num_bins + 1)
    centres, width = (edges[:-1] + edges[1:]) / 2, 1.0 / num_bins
    filled = count > 0
    show = axes is None
    if show:
        fig, axes = plt.subplots(2, 1, figsize=(4.6, 5.6), sharex=True, gridspec_kw={"height_ratios": [3, 1]})
    ax_top, ax_share = axes
    ax_top.bar(
        centres[filled],
        accuracy[filled],
        width=width,
        color="tab:blue",
        edgecolor="black",
        linewidth=0.5,
        label=f"{label}: accuracy",
    )
    gap_bottom = np.minimum(accuracy, confidence)[filled]
    ax_top.bar(
        centres[filled],
        np.abs(confidence - accuracy)[filled],
        bottom=gap_bottom,
        width=width,
        color="tab:red",
        alpha=0.35,
        edgecolor="tab:red",
        hatch="//",
        linewidth=0.5,
        label="gap to confidence",
    )
    ax_top.plot([0, 1], [0, 1], "k--", linewidth=1, label="perfect calibration")
    ax_top.set(xlim=(0, 1), ylim=(0, 1), ylabel="accuracy in bin", title=title)
    ax_top.legend(loc="upper left", fontsize=8)
    share = count / max(count.sum(), 1)
    ax_share.bar(
        centres, share, width=width, color="tab:gray", edgecolor="black", linewidth=0.5, label="share of samples"
    )
    ax_share.set(
        xlim=(0, 1),
        ylim=(0, 1),
        xlabel="confidence (top predicted probability)",
        ylabel="share of samples",
        title="samples per bin",
    )
    ax_share.legend(loc="upper left", fontsize=8)
    if show:
        fig.tight_layout()
        plt.show()
