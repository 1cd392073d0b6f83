"""Tests for bdl.spatter (the spatter recipe) and bdl.data (the data step and the loader)."""

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.ndimage import gaussian_filter

from bdl import data
from bdl.data import DataError, load_data, prepare
from bdl.spatter import SPATTER_PARAMS, spatter, spatter_mask

REPO = Path(__file__).resolve().parents[3]
REAL_MNIST = REPO / ".." / "shared" / "data" / "mnist.npz"


def require_real_mnist():
    """The project's offline MNIST beside the clone, as CI has it: its absence fails a CI run (the tests
    on real images would not run at all) and skips these tests elsewhere, naming the file."""
    if REAL_MNIST.is_file():
        return
    message = f"needs MNIST at {REAL_MNIST.resolve()} (../shared/data/mnist.npz beside the clone)"
    if os.environ.get("CI") == "true":
        pytest.fail(message + "; CI runs with ../shared beside the clone")
    pytest.skip(message)


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def files_in(folder):
    return sorted(p for p in Path(folder).rglob("*") if p.is_file())


def snapshot(folder):
    """Bytes and mtimes of every file below ``folder``."""
    return {p.relative_to(folder): (p.read_bytes(), p.stat().st_mtime_ns) for p in files_in(folder)}


@pytest.fixture(scope="module")
def real_test_images():
    require_real_mnist()
    with np.load(REAL_MNIST) as f:
        return f["x_test"][:300]


def fake_mnist_arrays(n_train=60000, n_test=10000):
    """Blank images with cycling labels: right shapes, compresses to almost nothing."""
    return {
        "x_train": np.zeros((n_train, 28, 28), np.uint8),
        "y_train": (np.arange(n_train) % 10).astype(np.uint8),
        "x_test": np.zeros((n_test, 28, 28), np.uint8),
        "y_test": (np.arange(n_test) % 10).astype(np.uint8),
    }


@pytest.fixture(scope="module")
def fake_npz(tmp_path_factory):
    path = tmp_path_factory.mktemp("inputs") / "mnist.npz"
    np.savez_compressed(path, **fake_mnist_arrays())
    return path


def write_fake_mnist_c(folder, fill=7):
    """Official MNIST-C layout: a spatter folder with (N, 28, 28, 1) uint8 images."""
    spatter_dir = Path(folder) / "spatter"
    spatter_dir.mkdir(parents=True)
    for split, n in data.SIZES.items():
        np.save(spatter_dir / f"{split}_images.npy", np.full((n, 28, 28, 1), fill, np.uint8))
        np.save(spatter_dir / f"{split}_labels.npy", (np.arange(n) % 10).astype(np.int64))
    return Path(folder)


@pytest.fixture(scope="module")
def fake_mnist_c(tmp_path_factory):
    return write_fake_mnist_c(tmp_path_factory.mktemp("mnist_c") / "mnist_c")


@pytest.fixture(autouse=True)
def no_keras_cache(monkeypatch, tmp_path):
    """Keep the user's ~/.keras and the network out of every test."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))

    def offline():
        raise OSError("offline (tests never download)")

    monkeypatch.setattr(data, "_download", offline)


# ---------------------------------------------------------------- recipe


def plain_spatter(image, rng):
    """The design's recipe for one image, step by step, as MNIST-C writes it."""
    loc, scale, sigma, threshold, mask_sigma = SPATTER_PARAMS[4]
    x = image / 255.0
    liquid = gaussian_filter(rng.normal(loc, scale, size=x.shape), sigma, mode="nearest")
    liquid[liquid < threshold] = 0
    mask = np.where(liquid > threshold, 1, 0).astype(np.float32)
    mask = gaussian_filter(mask, mask_sigma, mode="nearest")
    mask[mask < 0.8] = 0
    return np.rint(np.clip(x * (1 - mask) + 63 / 255 * mask, 0, 1) * 255).astype(np.uint8)


def test_spatter_equals_the_recipe_applied_image_by_image(real_test_images):
    # One Generator draws the batch's noise in one call, which is the same
    # stream as drawing image after image, so the outputs must agree exactly.
    rng = np.random.default_rng(11)
    expected = np.stack([plain_spatter(image, rng) for image in real_test_images])
    np.testing.assert_array_equal(spatter(real_test_images, rng=np.random.default_rng(11)), expected)


def test_only_the_mask_changes_pixels(real_test_images):
    out = spatter(real_test_images, rng=np.random.default_rng(5))
    mask = spatter_mask(real_test_images.shape, rng=np.random.default_rng(5))
    assert out.dtype == np.uint8 and out.shape == real_test_images.shape
    assert mask.min() >= 0 and mask.max() <= 1 and mask[mask > 0].min() >= 0.8
    clean = mask == 0
    np.testing.assert_array_equal(out[clean], real_test_images[clean])
    # Full mud: mask 1 (or so close that the ink left over rounds away) gives
    # exactly 63, whatever was under it.
    full = mask >= 1 - 1 / 512
    assert full.sum() > 20
    assert (out[full] == 63).all()
    # Inside the mask the pixel lies between the input and the mud grey.
    lo = np.minimum(real_test_images, 63)[~clean]
    hi = np.maximum(real_test_images, 63)[~clean]
    assert ((out[~clean] >= lo) & (out[~clean] <= hi)).all()


def test_mud_on_a_blank_image_is_63_times_the_mask():
    blank = np.zeros((50, 28, 28), np.uint8)
    out = spatter(blank, rng=3)
    mask = spatter_mask(blank.shape, rng=3)
    np.testing.assert_array_equal(out, np.rint(63 * mask.astype(np.float64)).astype(np.uint8))


# Expected share of changed pixels, derived apart from bdl.spatter: a Monte
# Carlo of the recipe's mask alone over 200,000 images, one image at a time
# as in plain_spatter above (seed 987654321, not the seeds used here), gave a
# masked share of 0.13530 (standard error 0.00012) with a per-image standard
# deviation of 0.0536, so the mean over 300 images has a standard deviation
# of 0.0536 / sqrt(300) = 0.0031 (the 666 disjoint 300-image means of that run
# ranged over 0.127..0.146). Bounds: 0.1353 +- 6 * 0.0031. A masked pixel
# stays the same only where the digit's grey already equals the mix (about
# 63), which is rare, so the changed share sits just below the masked share;
# the 6-sigma margin covers that too.
CHANGED_SHARE_BOUNDS = (0.1353 - 6 * 0.0031, 0.1353 + 6 * 0.0031)


def test_changed_pixel_share_matches_the_recipe(real_test_images):
    out = spatter(real_test_images, rng=np.random.default_rng([data.SPATTER_SEED, 1]))
    changed = np.mean(out != real_test_images)
    lo, hi = CHANGED_SHARE_BOUNDS
    assert lo <= changed <= hi, f"changed share {changed:.4f} outside [{lo:.4f}, {hi:.4f}]"


def test_spatter_is_seeded():
    images = np.random.default_rng(0).integers(0, 256, (200, 28, 28), dtype=np.uint8)
    first = spatter(images, rng=np.random.default_rng([data.SPATTER_SEED, 1]))
    again = spatter(images, rng=np.random.default_rng([data.SPATTER_SEED, 1]))
    other = spatter(images, rng=np.random.default_rng([data.SPATTER_SEED, 0]))
    assert first.tobytes() == again.tobytes()
    assert (first != other).mean() > 0.05
    # Building in chunks (as prepare does) draws the same noise as one call.
    rng = np.random.default_rng([data.SPATTER_SEED, 1])
    chunked = np.concatenate([spatter(images[:70], rng=rng), spatter(images[70:], rng=rng)])
    assert chunked.tobytes() == first.tobytes()


def test_spatter_rejects_float_images():
    with pytest.raises(ValueError, match="uint8"):
        spatter(np.zeros((2, 28, 28)))


# ---------------------------------------------------------------- prepare


def test_prepare_end_to_end_and_up_to_date(fake_npz, tmp_path):
    out = tmp_path / "data"
    logs = []
    provenance = prepare(mnist=fake_npz, data_dir=out, log=logs.append)
    names = {p.relative_to(out).as_posix() for p in files_in(out)}
    assert names == {"provenance.json"} | {f"{n}/{k}.npy" for n in data.NAMES for k in data.KEYS}

    fake = fake_mnist_arrays()
    for key in data.KEYS:
        clean = np.load(out / "MNIST" / f"{key}.npy")
        assert clean.dtype == np.uint8
        np.testing.assert_array_equal(clean, fake[key])
        corrupted = np.load(out / "MNIST_corrupted" / f"{key}.npy")
        assert corrupted.dtype == np.uint8 and corrupted.shape == fake[key].shape
    np.testing.assert_array_equal(np.load(out / "MNIST_corrupted" / "y_test.npy"), fake["y_test"])
    mud = np.load(out / "MNIST_corrupted" / "x_test.npy") > 0
    assert CHANGED_SHARE_BOUNDS[0] < mud.mean() < CHANGED_SHARE_BOUNDS[1]

    saved = json.loads((out / "provenance.json").read_text())
    assert saved == provenance
    assert saved["mnist"]["kind"] == "given path"
    assert saved["mnist"]["sha256"] == {"mnist.npz": sha256(fake_npz)}
    recipe = saved["corruption"]
    assert recipe["kind"] == "spatter recipe" and recipe["severity"] == 4
    assert recipe["seed"] == data.SPATTER_SEED and recipe["recipe_version"] == data.SPATTER_RECIPE
    assert recipe["parameters"]["threshold"] == 0.65
    assert saved["outputs"]["MNIST_corrupted/x_train.npy"]["shape"] == [60000, 28, 28]
    assert saved["outputs"]["MNIST/y_test.npy"] == {
        "shape": [10000],
        "dtype": "uint8",
        "sha256": sha256(out / "MNIST" / "y_test.npy"),
    }

    # Second run, same input: nothing is rewritten.
    before = snapshot(out)
    logs.clear()
    prepare(mnist=fake_npz, data_dir=out, log=logs.append)
    assert logs == ["data is up to date"]
    assert snapshot(out) == before
    # Without --mnist the data step finds data/MNIST, which is what it wrote.
    logs.clear()
    assert prepare(data_dir=out, log=logs.append)["mnist"]["kind"] == "given path"
    assert logs == ["data is up to date"]

    # Rebuild from data/MNIST (provenance lost): the same bytes come out.
    (out / "provenance.json").unlink()
    rebuilt = prepare(data_dir=out, log=logs.append)
    assert rebuilt["mnist"]["kind"] == "data dir"
    after = snapshot(out)
    assert {k: v[0] for k, v in after.items() if k.suffix == ".npy"} == {
        k: v[0] for k, v in before.items() if k.suffix == ".npy"
    }
    assert rebuilt["outputs"] == provenance["outputs"]


def test_official_mnist_c(fake_npz, fake_mnist_c, tmp_path):
    out = tmp_path / "data"
    provenance = prepare(mnist=fake_npz, mnist_c=fake_mnist_c, data_dir=out, log=lambda s: None)
    corrupted = np.load(out / "MNIST_corrupted" / "x_train.npy")
    assert corrupted.shape == (60000, 28, 28) and corrupted.dtype == np.uint8
    assert (corrupted == 7).all()
    assert np.load(out / "MNIST_corrupted" / "y_test.npy").dtype == np.uint8
    source = provenance["corruption"]
    assert source["kind"] == "official MNIST-C"
    assert source["path"] == str((fake_mnist_c / "spatter").resolve())
    assert source["sha256"]["test_images.npy"] == sha256(fake_mnist_c / "spatter" / "test_images.npy")

    # The spatter folder itself works too, and is the same input.
    logs = []
    prepare(mnist=fake_npz, mnist_c=fake_mnist_c / "spatter", data_dir=out, log=logs.append)
    assert logs == ["data is up to date"]
    # Other MNIST-C arrays: rebuilt.
    other = write_fake_mnist_c(tmp_path / "other", fill=9)
    prepare(mnist=fake_npz, mnist_c=other, data_dir=out, log=lambda s: None)
    assert (np.load(out / "MNIST_corrupted" / "x_test.npy") == 9).all()


def test_bad_mnist_c_is_named(fake_npz, tmp_path):
    folder = write_fake_mnist_c(tmp_path / "mnist_c")
    np.save(folder / "spatter" / "test_images.npy", np.zeros((10000, 28, 28, 3), np.uint8))
    with pytest.raises(DataError, match="test_images.npy"):
        prepare(mnist=fake_npz, mnist_c=folder, data_dir=tmp_path / "data", log=lambda s: None)
    with pytest.raises(DataError, match="train_images.npy: no such file"):
        prepare(mnist=fake_npz, mnist_c=tmp_path, data_dir=tmp_path / "data", log=lambda s: None)
    assert files_in(tmp_path / "data") == []


def make_bad_input(kind, folder):
    path = Path(folder) / f"{kind}.npz"
    arrays = fake_mnist_arrays(600, 100)
    if kind == "missing":
        pass
    elif kind == "truncated":
        source = REAL_MNIST if REAL_MNIST.is_file() else None
        if source is None:
            source = Path(folder) / "whole.npz"
            np.savez_compressed(source, **fake_mnist_arrays())
        path.write_bytes(source.read_bytes()[:1000])
    elif kind == "single_array":
        path = path.with_suffix(".npy")
        np.save(path, arrays["x_train"])
    elif kind == "not_a_zip":
        path.write_text("this is not MNIST\n")
    elif kind == "wrong_keys":
        np.savez(path, images=arrays["x_train"], labels=arrays["y_train"])
    elif kind == "wrong_shape":
        np.savez(path, **arrays)
    elif kind == "wrong_dtype":
        full = fake_mnist_arrays()
        np.savez(path, **dict(full, x_test=full["x_test"].astype(np.float32)))
    elif kind == "bad_labels":
        full = fake_mnist_arrays()
        np.savez(path, **dict(full, y_test=full["y_test"] + 1))
    return path


@pytest.mark.parametrize(
    "kind",
    ["missing", "truncated", "single_array", "not_a_zip", "wrong_keys", "wrong_shape", "wrong_dtype", "bad_labels"],
)
def test_bad_mnist_is_named_and_nothing_is_written(kind, tmp_path):
    path = make_bad_input(kind, tmp_path)
    out = tmp_path / "data"
    with pytest.raises(DataError) as error:
        prepare(mnist=path, data_dir=out, log=lambda s: None)
    assert str(path) in str(error.value)
    assert files_in(out) == []


def test_failed_write_leaves_no_temporary_files_and_no_provenance(fake_npz, fake_mnist_c, tmp_path, monkeypatch):
    out = tmp_path / "data"
    prepare(mnist=fake_npz, mnist_c=fake_mnist_c, data_dir=out, log=lambda s: None)
    other = write_fake_mnist_c(tmp_path / "other", fill=9)
    real_save, calls = np.save, []

    def failing_save(file, array):
        calls.append(file)
        if len(calls) == 3:
            raise OSError("disk full")
        real_save(file, array)

    monkeypatch.setattr(data.np, "save", failing_save)
    with pytest.raises(OSError, match="disk full"):
        prepare(mnist=fake_npz, mnist_c=other, data_dir=out, log=lambda s: None)
    left = [p.name for p in files_in(out)]
    assert not [name for name in left if name.endswith(".tmp")]
    assert "provenance.json" not in left  # it no longer vouches for the old files
    monkeypatch.setattr(data.np, "save", real_save)
    prepare(mnist=fake_npz, mnist_c=other, data_dir=out, log=lambda s: None)
    assert (np.load(out / "MNIST_corrupted" / "x_test.npy") == 9).all()


def test_where_mnist_is_found(fake_npz, fake_mnist_c, tmp_path):
    out = tmp_path / "data"
    quiet = dict(mnist_c=fake_mnist_c, data_dir=out, log=lambda s: None)
    with pytest.raises(DataError) as error:
        prepare(**quiet)
    message = str(error.value)
    assert "offline" in message and str(out / "mnist.npz") in message and "--mnist PATH" in message
    assert files_in(out) == []

    cache = tmp_path / "home" / ".keras" / "datasets" / "mnist.npz"
    cache.parent.mkdir(parents=True)
    cache.write_bytes(fake_npz.read_bytes())
    assert prepare(**quiet)["mnist"]["kind"] == "keras cache"

    for p in (out / "MNIST").iterdir():
        p.unlink()
    (out / "mnist.npz").write_bytes(fake_npz.read_bytes())
    provenance = prepare(**quiet)
    assert provenance["mnist"] == {
        "kind": "data dir",
        "path": str((out / "mnist.npz").resolve()),
        "sha256": {"mnist.npz": sha256(fake_npz)},
    }


# ---------------------------------------------------------------- loader


def test_load_data(fake_npz, fake_mnist_c, tmp_path):
    out = tmp_path / "data"
    prepare(mnist=fake_npz, mnist_c=fake_mnist_c, data_dir=out, log=lambda s: None)
    for name, pixel in (("MNIST", 0), ("MNIST_corrupted", 7)):
        (x_train, y_train, y_train_oh), (x_test, y_test, y_test_oh) = load_data(name, out)
        for x, y, y_oh, n in ((x_train, y_train, y_train_oh, 60000), (x_test, y_test, y_test_oh, 10000)):
            assert x.shape == (n, 28, 28, 1) and x.dtype == np.float32
            assert y.shape == (n,) and y.dtype.kind == "i"
            assert y_oh.shape == (n, 10) and y_oh.dtype == np.float32
            np.testing.assert_array_equal(y_oh.argmax(axis=1), y)
            assert (y_oh.sum(axis=1) == 1).all()
            # Blank fakes: every pixel is 1 - pixel / 255 (white background).
            assert np.isclose(x.min(), 1 - pixel / 255) and np.isclose(x.max(), 1 - pixel / 255)


def test_load_data_without_data(tmp_path):
    with pytest.raises(FileNotFoundError, match="make data"):
        load_data("MNIST", tmp_path)
    with pytest.raises(ValueError, match="MNIST_corrupted"):
        load_data("mnist", tmp_path)


def test_default_data_dir(monkeypatch, tmp_path):
    monkeypatch.delenv("BDL_DATA_DIR", raising=False)
    assert data.default_data_dir() == REPO / "data"
    monkeypatch.setenv("BDL_DATA_DIR", str(tmp_path))
    assert data.default_data_dir() == tmp_path


# ---------------------------------------------------------------- CLI


def test_cli_reports_a_missing_file_without_traceback(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    result = subprocess.run(
        [sys.executable, "-m", "bdl.data", "prepare", "--mnist", "missing.npz", "--data-dir", str(tmp_path / "data")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().count("\n") == 0
    assert "missing.npz" in result.stderr and "no such file" in result.stderr
    assert not (tmp_path / "data").exists()
