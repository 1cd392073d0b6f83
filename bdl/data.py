"""MNIST and its corrupted twin ("spatter" from MNIST-C) for the notebooks.

``python -m bdl.data prepare`` (what ``make data`` runs) writes
``data/MNIST/`` and ``data/MNIST_corrupted/``, each with ``x_train.npy``,
``y_train.npy``, ``x_test.npy``, ``y_test.npy`` (uint8, 0 = background,
255 = ink, as in Keras' ``mnist.npz``), and ``data/provenance.json``, which
records where MNIST came from and how the corrupted set was made.
Notebooks then call :func:`load_data`; nothing downloads inside a graded cell.
"""

import argparse
import hashlib
import json
import os
import sys
import time
import zipfile
import zlib
from pathlib import Path

import numpy as np
import scipy

from bdl.spatter import SPATTER_PARAMS, SPATTER_SEVERITY, spatter

NAMES = ("MNIST", "MNIST_corrupted")
KEYS = ("x_train", "y_train", "x_test", "y_test")
SIZES = {"train": 60000, "test": 10000}
PROVENANCE = "provenance.json"

# Fixed so every machine builds the same bytes; train and test get their own
# streams so that changing one split's size never shifts the other's noise.
SPATTER_SEED = 20190612
SPATTER_STREAMS = {"train": 0, "test": 1}
# Bump when anything that changes the bytes of the built set changes (the
# recipe in bdl.spatter, the seed, the streams), so `prepare` rebuilds data
# made by an older recipe.
SPATTER_RECIPE = "mnist-c-spatter/bdl-1"
_CHUNK = 10000  # images per spatter call while building: bounds memory only


class DataError(Exception):
    """An input the data step cannot use; the CLI prints it without a traceback."""


def default_data_dir():
    """Return ``$BDL_DATA_DIR`` or the repository's ``data/`` folder."""
    env = os.environ.get("BDL_DATA_DIR")
    return Path(env) if env else Path(__file__).resolve().parents[1] / "data"


# ---------------------------------------------------------------- inputs


def _sha256(path):
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


# What np.load raises on files that are truncated, not zips or not arrays.
_LOAD_ERRORS = (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile, zlib.error)


def _load_npz(path):
    """Read the four arrays of a Keras-layout mnist.npz, or raise DataError."""
    expected = "expected a Keras-layout mnist.npz"
    if not zipfile.is_zipfile(path):  # np.load would guess at other formats
        raise DataError(f"{path}: not a zip archive: truncated, or not an .npz ({expected})")
    try:
        with np.load(path, allow_pickle=False) as f:
            missing = [key for key in KEYS if key not in f.files]
            if missing:
                raise DataError(
                    f"{path}: no {', '.join(missing)} in it (has {', '.join(f.files) or 'nothing'}; {expected})"
                )
            return {key: f[key] for key in KEYS}
    except _LOAD_ERRORS as e:
        raise DataError(f"{path}: cannot read it ({type(e).__name__}: {e}; {expected})") from None


def _load_npy(path):
    try:
        return np.load(path, allow_pickle=False)
    except _LOAD_ERRORS as e:
        raise DataError(f"{path}: cannot read it as a .npy array ({type(e).__name__}: {e})") from None


def _check(arrays, where):
    """Validate MNIST-shaped arrays; return them with uint8 labels."""
    checked = {}
    for split, n in SIZES.items():
        x, y = arrays[f"x_{split}"], arrays[f"y_{split}"]
        if x.dtype != np.uint8 or x.shape != (n, 28, 28):
            raise DataError(f"{where(f'x_{split}')}: x_{split} is {x.dtype} {x.shape}, expected uint8 {(n, 28, 28)}")
        if y.dtype.kind not in "iu" or y.shape != (n,):
            raise DataError(f"{where(f'y_{split}')}: y_{split} is {y.dtype} {y.shape}, expected integer labels {(n,)}")
        if y.min() < 0 or y.max() > 9:
            raise DataError(f"{where(f'y_{split}')}: y_{split} has labels outside 0..9")
        checked[f"x_{split}"], checked[f"y_{split}"] = x, y.astype(np.uint8)
    return checked


def _keras_cache():
    return Path.home() / ".keras" / "datasets" / "mnist.npz"


def _download():
    """Download MNIST through Keras and return the path of the cached mnist.npz."""
    import bdl  # noqa: F401  (sets TF_USE_LEGACY_KERAS before TensorFlow loads)

    # isort: split
    import tensorflow as tf

    tf.keras.datasets.mnist.load_data()
    # tf-keras caches under ~/.keras, or under /tmp/.keras when ~ is read-only.
    for path in (_keras_cache(), Path("/tmp/.keras/datasets/mnist.npz")):
        if path.is_file():
            return path
    raise OSError("Keras downloaded MNIST but its mnist.npz is not in ~/.keras/datasets")


def _find_mnist(mnist, data_dir, old):
    """Return (record, loader) for the first MNIST source found, in the documented order."""

    def npz(kind, path):
        if not Path(path).is_file():
            raise DataError(f"{path}: no such file (expected a Keras-layout mnist.npz)")
        path = Path(path).resolve()
        record = {"kind": kind, "path": str(path), "sha256": {path.name: _sha256(path)}}
        return record, lambda: _check(_load_npz(path), lambda key: path)

    if mnist is not None:
        return npz("given path", mnist)
    local = {key: data_dir / "MNIST" / f"{key}.npy" for key in KEYS}
    if all(path.is_file() for path in local.values()):
        hashes = {f"MNIST/{key}.npy": _sha256(path) for key, path in local.items()}
        outputs = (old or {}).get("outputs", {})
        if all(outputs.get(name, {}).get("sha256") == h for name, h in hashes.items()):
            # These are the arrays the last run wrote: their origin still holds.
            record = old["mnist"]
        else:
            record = {
                "kind": "data dir",
                "path": str((data_dir / "MNIST").resolve()),
                "sha256": {name.split("/")[1]: h for name, h in hashes.items()},
            }
        return record, lambda: _check({key: _load_npy(path) for key, path in local.items()}, lambda key: local[key])
    for kind, path in (("data dir", data_dir / "mnist.npz"), ("keras cache", _keras_cache())):
        if path.is_file():
            return npz(kind, path)
    try:
        path = _download()
    except Exception as e:  # offline, no TensorFlow, a proxy: all mean "bring the file"
        raise DataError(
            f"MNIST not found and the download failed ({type(e).__name__}: {e}). "
            f"Put a Keras-layout mnist.npz at {data_dir / 'mnist.npz'}, "
            "or pass --mnist PATH"
        ) from None
    return npz("download", path)


def _find_mnist_c(mnist_c):
    """Return (record, loader) for official MNIST-C spatter arrays in ``mnist_c``."""
    root = Path(mnist_c)
    folder = root / "spatter" if (root / "spatter").is_dir() else root
    files = {
        f"{kind}_{split}": folder / f"{split}_{name}.npy"
        for split in SIZES
        for kind, name in (("x", "images"), ("y", "labels"))
    }
    for path in files.values():
        if not path.is_file():
            raise DataError(
                f"{path}: no such file (expected MNIST-C's spatter folder, or the mnist_c folder holding it)"
            )

    def load():
        arrays = {key: _load_npy(path) for key, path in files.items()}
        for split in SIZES:  # MNIST-C stores a channel axis: (N, 28, 28, 1)
            x = arrays[f"x_{split}"]
            if x.ndim == 4 and x.shape[-1] == 1:
                arrays[f"x_{split}"] = x[..., 0]
        return _check(arrays, lambda key: files[key])

    record = {
        "kind": "official MNIST-C",
        "path": str(folder.resolve()),
        "sha256": {path.name: _sha256(path) for path in files.values()},
    }
    return record, load


def _recipe_record():
    loc, scale, sigma, threshold, mask_sigma = SPATTER_PARAMS[SPATTER_SEVERITY]
    return {
        "kind": "spatter recipe",
        "recipe_version": SPATTER_RECIPE,
        "severity": SPATTER_SEVERITY,
        "parameters": {
            "loc": loc,
            "scale": scale,
            "sigma": sigma,
            "threshold": threshold,
            "mask_sigma": mask_sigma,
            "mud": "63/255",
        },
        "seed": SPATTER_SEED,
        "streams": {split: [SPATTER_SEED, n] for split, n in SPATTER_STREAMS.items()},
    }


def _build_spatter(mnist):
    corrupted = {}
    for split, stream in SPATTER_STREAMS.items():
        rng = np.random.default_rng([SPATTER_SEED, stream])
        # Chunks draw the same noise as one call would: a Generator's draws
        # are sequential, and the blur never crosses images.
        x = mnist[f"x_{split}"]
        corrupted[f"x_{split}"] = np.concatenate(
            [spatter(x[i : i + _CHUNK], rng=rng) for i in range(0, len(x), _CHUNK)]
        )
        corrupted[f"y_{split}"] = mnist[f"y_{split}"].copy()
    return corrupted


# ---------------------------------------------------------------- outputs


def _expected_shapes():
    return {
        f"{name}/{key}.npy": (SIZES[key[2:]],) + ((28, 28) if key[0] == "x" else ()) for name in NAMES for key in KEYS
    }


def _same_source(a, b):
    return sorted((a or {}).get("sha256", {}).values()) == sorted((b or {}).get("sha256", {}).values())


def _same_corruption(a, b):
    fields = ("kind", "recipe_version", "severity", "seed")
    return all((a or {}).get(f) == b.get(f) for f in fields) and (b["kind"] != "official MNIST-C" or _same_source(a, b))


def _outputs_intact(data_dir):
    for rel, shape in _expected_shapes().items():
        try:
            array = np.load(data_dir / rel, mmap_mode="r", allow_pickle=False)
        except (*_LOAD_ERRORS, FileNotFoundError):
            return False
        if array.shape != shape or array.dtype != np.uint8:
            return False
    return True


def _read_provenance(data_dir):
    try:
        return json.loads((data_dir / PROVENANCE).read_text())
    except (OSError, ValueError):
        return None


def _stage(path, write):
    """Write ``path``'s new content to a temporary file beside it; return its path."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())  # the bytes are on disk before the rename publishes them
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def _write(data_dir, arrays, provenance):
    """Replace the outputs atomically, provenance last, leaving no temporary files."""
    staged = []
    try:
        # An old provenance must never vouch for files this run replaces.
        (data_dir / PROVENANCE).unlink(missing_ok=True)
        for rel, array in arrays.items():
            path = data_dir / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = _stage(path, lambda f: np.save(f, array))
            staged.append((tmp, path))
            provenance["outputs"][rel] = {"shape": list(array.shape), "dtype": str(array.dtype), "sha256": _sha256(tmp)}
        while staged:
            tmp, path = staged[-1]
            os.replace(tmp, path)
            staged.pop()
        text = json.dumps(provenance, indent=2) + "\n"
        os.replace(_stage(data_dir / PROVENANCE, lambda f: f.write(text.encode())), data_dir / PROVENANCE)
    finally:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)


def prepare(mnist=None, mnist_c=None, data_dir=None, log=print):
    """Write ``data/MNIST``, ``data/MNIST_corrupted`` and ``data/provenance.json``.

    MNIST comes from ``mnist`` (a Keras-layout mnist.npz) or else, in order,
    ``data/MNIST/``, ``data/mnist.npz``, the Keras cache, a Keras download.
    The corrupted set comes from the official MNIST-C spatter arrays in
    ``mnist_c`` or else from the seeded recipe (:func:`bdl.spatter.spatter`). Does
    nothing when the outputs already match these inputs. Returns the
    provenance (a dict); raises DataError for unusable inputs.
    """
    data_dir = Path(data_dir) if data_dir is not None else default_data_dir()
    old = _read_provenance(data_dir)
    source, load_mnist = _find_mnist(mnist, data_dir, old)
    if mnist_c is not None:
        corruption, load_corrupted = _find_mnist_c(mnist_c)
    else:
        corruption, load_corrupted = _recipe_record(), None
    if (
        old
        and _same_source(old.get("mnist"), source)
        and _same_corruption(old.get("corruption"), corruption)
        and _outputs_intact(data_dir)
    ):
        log("data is up to date")
        return old

    start = time.perf_counter()
    log(f"MNIST from {source['kind']}: {source['path']}")
    clean = load_mnist()
    if load_corrupted:
        log(f"MNIST_corrupted from official MNIST-C: {corruption['path']}")
        corrupted = load_corrupted()
    else:
        log(f"MNIST_corrupted: building spatter (severity {SPATTER_SEVERITY}, seed {SPATTER_SEED})")
        corrupted = _build_spatter(clean)
    arrays = {
        f"{name}/{key}.npy": part[key]
        for name, part in (("MNIST", clean), ("MNIST_corrupted", corrupted))
        for key in KEYS
    }
    provenance = {
        "format": 1,
        "mnist": source,
        "corruption": corruption,
        "outputs": {},
        "software": {"numpy": np.__version__, "scipy": scipy.__version__},
    }
    _write(data_dir, arrays, provenance)
    log(f"wrote {data_dir} in {time.perf_counter() - start:.1f} s")
    return provenance


# ---------------------------------------------------------------- notebooks


def load_data(name, data_dir=None):
    """Load "MNIST" or "MNIST_corrupted" as the original assignment did.

    Returns ``(x_train, y_train, y_train_oh), (x_test, y_test, y_test_oh)``:
    images ``1 - pixel / 255`` (white background) as float32 (N, 28, 28, 1),
    int64 labels (N,), one-hot float32 labels (N, 10).
    """
    if name not in NAMES:
        raise ValueError(f"name must be one of {NAMES}, got {name!r}")
    folder = (Path(data_dir) if data_dir is not None else default_data_dir()) / name
    for key in KEYS:
        if not (folder / f"{key}.npy").is_file():
            raise FileNotFoundError(
                f"{folder / f'{key}.npy'} not found: run `make data` "
                "(or `python -m bdl.data prepare --mnist PATH`) first"
            )

    def split(part):
        x = 1 - np.load(folder / f"x_{part}.npy").astype(np.float32)[..., None] / 255
        y = np.load(folder / f"y_{part}.npy").astype(np.int64)
        return x, y, np.eye(10, dtype=np.float32)[y]

    return split("train"), split("test")


def main(argv=None):
    """The data step's command line; returns the exit code."""
    parser = argparse.ArgumentParser(prog="python -m bdl.data", description="Prepare the course's data sets.")
    commands = parser.add_subparsers(dest="command", required=True)
    prep = commands.add_parser("prepare", help="write data/MNIST, data/MNIST_corrupted and data/provenance.json")
    prep.add_argument("--mnist", metavar="PATH", help="a Keras-layout mnist.npz")
    prep.add_argument(
        "--mnist-c",
        metavar="DIR",
        help="official MNIST-C (the mnist_c folder or its spatter folder); default: build spatter from MNIST",
    )
    prep.add_argument(
        "--data-dir", metavar="DIR", help="output folder (default: $BDL_DATA_DIR or the repository's data/)"
    )
    args = parser.parse_args(argv)
    try:
        prepare(args.mnist, args.mnist_c, args.data_dir)
    except (DataError, OSError) as e:  # OSError: disk full, no permission
        print(f"bdl.data: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
