"""Figures of the deep-ensembles notebook: members and ensemble, training, uncertainty maps."""
import matplotlib.pyplot as plt
import numpy as np


def plot_regression_ensemble(x, member_means, member_scales, mean, std, x_train, y_train, truth,
                             data_range=(-4.0, 4.0), title="A deep ensemble on the cubic data"):
    """Plot six members' mean +- scale (a 3x2 grid) beside the ensemble's mean +- std.

    ``x`` ``[G]`` is the grid; ``member_means`` and ``member_scales`` are
    ``[M, G]`` (the first six members are shown); ``mean`` and ``std`` ``[G]``
    are the ensemble's; ``truth`` ``[G]`` is the noise-free function.
    """
    x, x_train, y_train = np.ravel(x), np.ravel(x_train), np.ravel(y_train)
    limit = 1.4 * np.max(np.abs(truth))
    fig = plt.figure(figsize=(14, 7.5), layout="constrained")
    grid = fig.add_gridspec(3, 4)

    def panel(ax, centre, spread, colour, label, band_label, panel_title):
        ax.axvspan(*data_range, color="0.93", zorder=0)
        ax.plot(x, truth, "k--", linewidth=1, label="truth $y = x^3$")
        ax.plot(x_train, y_train, "o", color="tab:red", markersize=3, label="training data")
        ax.plot(x, centre, color=colour, label=label)
        ax.fill_between(x, centre - spread, centre + spread, color=colour, alpha=0.3, label=band_label)
        ax.set_ylim(-limit, limit)
        ax.set_xlim(x.min(), x.max())
        ax.set_title(panel_title)
        ax.set_xlabel("x")
        ax.set_ylabel("y")

    for m in range(min(6, len(member_means))):
        ax = fig.add_subplot(grid[m // 2, m % 2])
        panel(ax, member_means[m], member_scales[m], "tab:blue", "mean", "mean $\\pm$ scale",
              f"member {m + 1}")
    ax = fig.add_subplot(grid[:, 2:])
    panel(ax, mean, std, "tab:purple", "ensemble mean $\\mu_*$", "$\\mu_* \\pm \\sigma_*$",
          f"ensemble of {len(member_means)} members")
    handles, labels = ax.get_legend_handles_labels()
    handles.append(plt.Rectangle((0, 0), 1, 1, color="0.93"))
    labels.append("range of the training inputs")
    ax.legend(handles, labels, loc="upper left")
    fig.suptitle(title)
    plt.show()


def plot_training_history(history, reference=None, title="Training the ensemble"):
    """Plot the ensemble's training accuracy and NLL per epoch.

    ``history`` has ``"accuracy"`` and ``"nll"`` arrays; ``reference``, if
    given, is ``{"accuracy": value, "nll": value}`` drawn as dashed lines.
    """
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.6), layout="constrained")
    epochs = np.arange(1, len(history["accuracy"]) + 1)
    for ax, key, name in zip(axes, ("accuracy", "nll"), ("accuracy", "NLL (nats)")):
        ax.plot(epochs, history[key], label=f"this run (last {history[key][-1]:.3f})")
        if reference is not None:
            ax.axhline(reference[key], color="black", linestyle="--",
                       label=f"original run ({reference[key]:.3f})")
        ax.set_title(f"Ensemble training {name}")
        ax.set_xlabel("epoch")
        ax.set_ylabel(name)
        ax.legend()
    axes[1].set_yscale("log")
    fig.suptitle(title)
    plt.show()


def plot_uncertainty_maps(x_train, labels, grid, predicted_class, data_uncertainty,
                          knowledge_uncertainty, vmax=None, title="Where the ensemble is uncertain"):
    """Plot, over a square grid, the data, decision regions and the two uncertainties.

    ``grid`` ``[G]`` holds the coordinates along each axis; ``predicted_class``
    and both uncertainties are ``[G * G]`` values at the points
    ``(grid[i], grid[j])`` in row-major order (``i`` the first coordinate).
    Uncertainties are in nats; each map has its own colour scale, from 0 to
    ``vmax = (data_max, knowledge_max)`` (default: each map's maximum). The
    dashed circle is the unit disc that holds the training data. Returns the
    ``vmax`` used, so a second figure can share the colour scales.
    """
    size = len(grid)
    num_classes = int(np.max(labels)) + 1
    colours = plt.get_cmap("tab10").colors[:num_classes]
    class_cmap = plt.matplotlib.colors.ListedColormap(colours)
    extent = (grid[0], grid[-1], grid[0], grid[-1])
    as_image = lambda values: np.reshape(values, (size, size)).T  # rows along the second coordinate
    if vmax is None:
        vmax = tuple(max(float(np.max(values)), 1e-6) for values in (data_uncertainty, knowledge_uncertainty))

    fig, axes = plt.subplots(2, 2, figsize=(11, 10), layout="constrained")
    ax = axes[0, 0]
    for k in range(num_classes):
        ax.scatter(*x_train[labels == k].T, s=4, color=colours[k], label=f"class {k}")
    ax.set_title("Training data")
    ax.legend(loc="upper right", markerscale=3)
    ax = axes[0, 1]
    ax.imshow(as_image(predicted_class), origin="lower", extent=extent, cmap=class_cmap,
              vmin=-0.5, vmax=num_classes - 0.5, interpolation="nearest")
    ax.scatter(*x_train.T, s=0.3, color="black", alpha=0.3)
    ax.legend(handles=[plt.matplotlib.patches.Patch(color=colours[k], label=f"class {k}")
                       for k in range(num_classes)], loc="upper right")
    ax.set_title("Ensemble's decision regions (data in black)")
    maps = ((axes[1, 0], data_uncertainty, vmax[0], "Data uncertainty (mean member entropy)"),
            (axes[1, 1], knowledge_uncertainty, vmax[1], "Knowledge uncertainty (disagreement)"))
    for ax, values, top, name in maps:
        image = ax.imshow(as_image(values), origin="lower", extent=extent, cmap="magma", vmin=0.0, vmax=top)
        ax.add_patch(plt.Circle((0, 0), 1.0, fill=False, linestyle="--", color="white", linewidth=1.2,
                                label="edge of the training data"))
        ax.legend(loc="upper right", facecolor="0.25", labelcolor="white", edgecolor="0.25")
        ax.set_title(name)
        fig.colorbar(image, ax=ax, label="nats", shrink=0.85, extend="max")
    for ax in axes.flat:
        ax.set_xlim(grid[0], grid[-1])
        ax.set_ylim(grid[0], grid[-1])
        ax.set_aspect("equal")
        ax.set_xlabel("$x_1$")
        ax.set_ylabel("$x_2$")
    fig.suptitle(title)
    plt.show()
    return vmax
