"""Figures of the deep-ensembles notebook: members and ensemble, training, uncertainty maps."""

import matplotlib.pyplot as plt
import numpy as np


def _band_panel(
    ax,
    x,
    truth,
    x_train,
    y_train,
    centre,
    spread,
    colour,
    label,
    band_label,
    panel_title,
    ylim,
    data_range,
    outliers=None,
    span_label=None,
):
    """One panel of the cubic set: the truth, the training data (``outliers``, a mask, marked apart),
    ``centre`` +- ``spread`` over the grid ``x``, and the range of the training inputs shaded."""
    outliers = np.zeros(x_train.shape, bool) if outliers is None else outliers
    ax.axvspan(*data_range, color="0.93", zorder=0, label=span_label)
    ax.plot(x, truth, "k--", linewidth=1, label="truth $y = x^3$")
    ax.plot(x_train[~outliers], y_train[~outliers], "o", color="tab:red", markersize=3, label="training data")
    if outliers.any():
        ax.plot(x_train[outliers], y_train[outliers], "X", color="black", markersize=9, label="outlier")
    ax.plot(x, centre, color=colour, label=label)
    ax.fill_between(x, centre - spread, centre + spread, color=colour, alpha=0.3, label=band_label)
    ax.set_ylim(*ylim)
    ax.set_xlim(x.min(), x.max())
    ax.set_title(panel_title)
    ax.set_xlabel("x")
    ax.set_ylabel("y")


def plot_regression_ensemble(
    x,
    member_means,
    member_scales,
    mean,
    std,
    x_train,
    y_train,
    truth,
    data_range=(-4.0, 4.0),
    title="A deep ensemble on the cubic data",
):
    """Plot six members' mean +- scale (a 3x2 grid) beside the ensemble's mean +- std.

    ``x`` ``[G]`` is the grid; ``member_means`` and ``member_scales`` are
    ``[M, G]`` (the first six members are shown); ``mean`` and ``std`` ``[G]``
    are the ensemble's; ``truth`` ``[G]`` is the noise-free function.
    """
    x, x_train, y_train = np.ravel(x), np.ravel(x_train), np.ravel(y_train)
    limit = 1.4 * np.max(np.abs(truth))
    fig = plt.figure(figsize=(14, 7.5), layout="constrained")
    grid = fig.add_gridspec(3, 4)
    for m in range(min(6, len(member_means))):
        ax = fig.add_subplot(grid[m // 2, m % 2])
        _band_panel(
            ax,
            x,
            truth,
            x_train,
            y_train,
            member_means[m],
            member_scales[m],
            "tab:blue",
            "mean",
            "mean $\\pm$ scale",
            f"member {m + 1}",
            (-limit, limit),
            data_range,
        )
    ax = fig.add_subplot(grid[:, 2:])
    _band_panel(
        ax,
        x,
        truth,
        x_train,
        y_train,
        mean,
        std,
        "tab:purple",
        "ensemble mean $\\mu_*$",
        "$\\mu_* \\pm \\sigma_*$",
        f"ensemble of {len(member_means)} members",
        (-limit, limit),
        data_range,
    )
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
            ax.axhline(reference[key], color="black", linestyle="--", label=f"original run ({reference[key]:.3f})")
        ax.set_title(f"Ensemble training {name}")
        ax.set_xlabel("epoch")
        ax.set_ylabel(name)
        ax.legend()
    axes[1].set_yscale("log")
    fig.suptitle(title)
    plt.show()


def plot_uncertainty_maps(
    x_train,
    labels,
    grid,
    predicted_class,
    data_uncertainty,
    knowledge_uncertainty,
    vmax=None,
    title="Where the ensemble is uncertain",
):
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
    ax.imshow(
        as_image(predicted_class),
        origin="lower",
        extent=extent,
        cmap=class_cmap,
        vmin=-0.5,
        vmax=num_classes - 0.5,
        interpolation="nearest",
    )
    ax.scatter(*x_train.T, s=0.3, color="black", alpha=0.3)
    ax.legend(
        handles=[plt.matplotlib.patches.Patch(color=colours[k], label=f"class {k}") for k in range(num_classes)],
        loc="upper right",
    )
    ax.set_title("Ensemble's decision regions (data in black)")
    maps = (
        (axes[1, 0], data_uncertainty, vmax[0], "Data uncertainty (mean member entropy)"),
        (axes[1, 1], knowledge_uncertainty, vmax[1], "Knowledge uncertainty (disagreement)"),
    )
    for ax, values, top, name in maps:
        image = ax.imshow(as_image(values), origin="lower", extent=extent, cmap="magma", vmin=0.0, vmax=top)
        ax.add_patch(
            plt.Circle(
                (0, 0), 1.0, fill=False, linestyle="--", color="white", linewidth=1.2, label="edge of the training data"
            )
        )
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


def plot_ensemble_bands(x, truth, rows, data_range=(-4.0, 4.0), ylim=None, title="Ensembles' predictive bands"):
    """Plot ensembles' mean +- std side by side, one row per training set.

    ``x`` ``[G]`` is the grid and ``truth`` ``[G]`` the noise-free function.
    ``rows`` is a list of ``(row_name, x_train, y_train, panels)`` or
    ``(row_name, x_train, y_train, panels, outliers)``: ``panels`` maps a
    panel's name to ``(mean, std)``, each ``[G]``, and ``outliers``, a boolean
    mask over the training points, marks the points drawn as outliers.
    ``ylim`` defaults to 1.4 times the largest ``|truth|`` either side of 0.
    """
    x = np.ravel(x)
    limit = 1.4 * np.max(np.abs(truth))
    ylim = (-limit, limit) if ylim is None else ylim
    num_columns = max(len(row[3]) for row in rows)
    fig, axes = plt.subplots(
        len(rows), num_columns, figsize=(6 * num_columns, 4.2 * len(rows)), layout="constrained", squeeze=False
    )
    colours = ("tab:purple", "tab:green", "tab:orange")
    for row_axes, row in zip(axes, rows):
        row_name, x_train, y_train, panels = row[:4]
        x_train, y_train = np.ravel(x_train), np.ravel(y_train)
        outliers = np.ravel(row[4]) if len(row) == 5 else None
        for ax, (name, (mean, std)), colour in zip(row_axes, panels.items(), colours):
            _band_panel(
                ax,
                x,
                truth,
                x_train,
                y_train,
                mean,
                std,
                colour,
                "ensemble mean $\\mu_*$",
                "$\\mu_* \\pm \\sigma_*$",
                f"{name}: {row_name}",
                ylim,
                data_range,
                outliers,
                span_label="range of the training inputs",
            )
            ax.legend(loc="upper left", fontsize="small")
    fig.suptitle(title)
    plt.show()


def plot_ensemble_size_sweep(sizes, test_nll, epistemic_share, best_nll=None, title="The number of members"):
    """Plot the test NLL and the epistemic share of the variance against the ensemble size.

    ``sizes`` are the ensemble sizes ``M``; ``test_nll`` and
    ``epistemic_share`` map a region's name (for example "inside the data")
    to one value per size. NLLs more than ten times the smallest are drawn as
    triangles at the top of the axis, with their values written beside them.
    ``best_nll``, if given, is drawn as a dashed line (the NLL of the truth).
    """
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8), layout="constrained")
    all_nlls = np.concatenate([np.ravel(series) for series in test_nll.values()])
    top = 10 * np.min(all_nlls)
    for region, series in test_nll.items():
        series = np.asarray(series, dtype=float)
        (line,) = axes[0].plot(sizes, np.minimum(series, top), "o-", label=region)
        for size, value in zip(sizes, series):
            if value > top:
                axes[0].plot(size, top, "^", color=line.get_color(), markersize=10)
                axes[0].annotate(
                    f"{value:.3g}", (size, top), textcoords="offset points", xytext=(8, -12), color=line.get_color()
                )
    if best_nll is not None:
        axes[0].axhline(best_nll, color="black", linestyle="--", linewidth=1, label="knowing the truth and noise")
    axes[0].set_yscale("log")
    axes[0].yaxis.set_major_formatter(plt.matplotlib.ticker.ScalarFormatter())
    axes[0].yaxis.set_minor_formatter(plt.matplotlib.ticker.ScalarFormatter())
    axes[0].set_ylim(0.8 * min(np.min(all_nlls), best_nll or np.inf), 1.3 * top)
    axes[0].set_title("Test NLL of the ensemble's Gaussian")
    axes[0].set_ylabel("test NLL (nats)")
    for region, series in epistemic_share.items():
        axes[1].plot(sizes, series, "o-", label=region)
    axes[1].set_ylim(0.0, 1.0)
    axes[1].set_title("Spread of the means / total variance")
    axes[1].set_ylabel("epistemic share of $\\sigma_*^2$")
    for ax in axes:
        ax.set_xticks(sizes)
        ax.set_xlabel("ensemble size M")
        ax.legend()
    fig.suptitle(title)
    plt.show()
