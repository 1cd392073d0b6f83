"""bdl.toy: the seeded toy data sets."""

import numpy as np
import pytest

from bdl import toy


def test_cubic_data_is_seeded_and_in_range():
    x, y = toy.cubic_data(seed=3)
    assert x.shape == y.shape == (40, 1) and x.dtype == y.dtype == np.float32
    assert np.all((-4 <= x) & (x <= 4))
    again_x, again_y = toy.cubic_data(seed=3)
    assert np.array_equal(x, again_x) and np.array_equal(y, again_y)
    assert not np.array_equal(x, toy.cubic_data(seed=4)[0])


def test_cubic_noise_has_the_requested_scale():
    x, y = toy.cubic_data(num_points=20000, noise_std=3.0, seed=0)
    residual = y - toy.cubic(x)
    assert abs(residual.mean()) < 0.1 and abs(residual.std() - 3.0) < 0.1


def test_spiral_has_balanced_classes_in_the_unit_disc():
    x, labels = toy.spiral_data(points_per_class=100, num_classes=3, seed=1)
    assert x.shape == (300, 2) and x.dtype == np.float32
    assert np.bincount(labels).tolist() == [100, 100, 100]
    assert np.all(np.linalg.norm(x, axis=1) <= 1 + 1e-6)
    assert np.array_equal(x, toy.spiral_data(points_per_class=100, num_classes=3, seed=1)[0])


def test_spiral_arms_are_rotations_of_each_other_without_noise():
    x, labels = toy.spiral_data(points_per_class=50, angular_noise=0.0)
    angle = np.arctan2(x[:, 0], x[:, 1])
    radius = np.linalg.norm(x, axis=1)
    # Same radius, angle shifted by 8 radians per arm.
    assert np.allclose(radius[labels == 0], radius[labels == 1], atol=1e-6)
    shift = np.angle(np.exp(1j * (angle[labels == 1] - angle[labels == 0])))[1:]
    assert np.allclose(shift, np.angle(np.exp(8j)), atol=1e-5)


def test_spiral_arm_winds_8_radians_as_the_radius_goes_from_0_to_1():
    x, labels = toy.spiral_data(points_per_class=1001, angular_noise=0.0)
    arm = x[labels == 2]
    assert np.allclose(np.linalg.norm(arm, axis=1), np.linspace(0.0, 1.0, 1001), atol=1e-6)
    angle = np.unwrap(np.arctan2(arm[1:, 0], arm[1:, 1]))
    assert angle[-1] - angle[0] == pytest.approx(8.0 * 0.999, abs=1e-4)  # from r = 0.001 to r = 1


def test_spiral_noise_grows_from_0_3_at_the_centre_to_0_6_at_the_rim():
    # The original's noise: angular_noise * (1 + r) standard deviations, r the radius.
    x, labels = toy.spiral_data(points_per_class=20_000, angular_noise=0.3, seed=3)
    clean, _ = toy.spiral_data(points_per_class=20_000, angular_noise=0.0)
    radius = np.linalg.norm(clean, axis=1)
    noise = np.angle(np.exp(1j * (np.arctan2(x[:, 0], x[:, 1]) - np.arctan2(clean[:, 0], clean[:, 1]))))
    inner, outer = (radius > 0.05) & (radius < 0.15), radius > 0.9
    assert np.std(noise[inner]) == pytest.approx(0.3 * 1.1, rel=0.05)
    assert np.std(noise[outer]) == pytest.approx(0.6 * 0.975, rel=0.05)


def test_quartic_data_is_the_six_points():
    x, y = toy.quartic_data()
    assert x.shape == y.shape == (6, 1) and x.dtype == y.dtype == np.float32
    assert x[:, 0].tolist() == pytest.approx([-2.0, -1.8, -1.0, 1.0, 1.8, 2.0])
    assert y[[0, 2], 0].tolist() == pytest.approx([-3.0, 3.0])  # -16 + 12 + 1 and -1 + 3 + 1


def test_three_blobs_are_seeded_balanced_and_split_in_half():
    (x_train, y_train, blob_train), (x_test, y_test, blob_test) = toy.three_blobs_data(num_points=1500, seed=2)
    assert x_train.shape == x_test.shape == (750, 2) and x_train.dtype == np.float32
    assert y_train.dtype == blob_train.dtype == np.int64 and set(np.unique(y_train)) == {0, 1}
    assert np.bincount(np.concatenate([blob_train, blob_test])).tolist() == [500, 500, 500]
    again = toy.three_blobs_data(num_points=1500, seed=2)
    assert np.array_equal(x_train, again[0][0]) and np.array_equal(y_test, again[1][1])
    assert np.array_equal(blob_test, again[1][2])
    assert not np.array_equal(x_train, toy.three_blobs_data(num_points=1500, seed=3)[0][0])


def test_three_blobs_have_the_requested_centres_spread_and_pure_outer_labels():
    (x_train, y_train, blob_train), (x_test, y_test, blob_test) = toy.three_blobs_data(seed=0)
    x, y, blob = (np.concatenate(pair) for pair in [(x_train, x_test), (y_train, y_test), (blob_train, blob_test)])
    assert x.shape == (49_998, 2)
    for k, centre in enumerate([(-3.0, -5.0), (0.0, 0.0), (5.0, 5.0)]):
        assert np.allclose(x[blob == k].mean(axis=0), centre, atol=0.02)
        assert np.allclose(x[blob == k].std(axis=0), 0.6, atol=0.02)
    assert np.all(y[blob == 0] == 0) and np.all(y[blob == 2] == 1)


def test_the_mixed_blobs_labels_are_a_fair_coin_wherever_the_point_lies():
    (x_train, y_train, blob_train), (x_test, y_test, blob_test) = toy.three_blobs_data(num_points=300_000, seed=1)
    x, y = np.concatenate([x_train, x_test]), np.concatenate([y_train, y_test])
    mixed = np.concatenate([blob_train, blob_test]) == 1
    assert abs(y[mixed].mean() - 0.5) < 0.01  # 100,000 points: the share's standard error is 0.0016
    # The same share on either side of the centre, along each axis and along the line between the outer blobs.
    for direction in ([1.0, 0.0], [0.0, 1.0], [8.0, 10.0]):
        side = x[mixed] @ np.array(direction) > 0
        assert abs(y[mixed][side].mean() - 0.5) < 0.015 and abs(y[mixed][~side].mean() - 0.5) < 0.015
    assert abs(np.corrcoef(x[mixed][:, 0], y[mixed])[0, 1]) < 0.015


def test_three_blobs_take_other_label_probabilities():
    (_, y_train, blob_train), _ = toy.three_blobs_data(num_points=30_000, label_probability=(0.2, 0.9, 0.5), seed=4)
    for k, share in enumerate([0.2, 0.9, 0.5]):
        assert abs(y_train[blob_train == k].mean() - share) < 0.03


def test_linear_data_is_seeded_and_in_range():
    x, y = toy.linear_data(seed=3)
    assert x.shape == y.shape == (20,) and x.dtype == y.dtype == np.float32
    assert np.all((-5 <= x) & (x <= 5))
    again_x, again_y = toy.linear_data(seed=3)
    assert np.array_equal(x, again_x) and np.array_equal(y, again_y)
    assert not np.array_equal(x, toy.linear_data(seed=4)[0])


def test_linear_data_follows_its_line_with_the_requested_noise():
    x, y = toy.linear_data(num_points=20000, slope=0.5, intercept=2.0, noise_std=3.0, low=-2.0, high=4.0, seed=1)
    assert x.min() >= -2 and x.max() <= 4
    slope, intercept = np.polyfit(x, y, 1)
    assert abs(slope - 0.5) < 0.05 and abs(intercept - 2.0) < 0.1
    residual = y - (0.5 * x + 2.0)
    assert abs(residual.std() - 3.0) < 0.1


def test_linear_data_without_noise_is_the_line():
    x, y = toy.linear_data(num_points=5, slope=-1.5, intercept=0.25, noise_std=0.0)
    assert np.allclose(y, -1.5 * x + 0.25, atol=1e-6)
