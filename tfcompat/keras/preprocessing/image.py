"""`tf.keras.preprocessing.image` as Keras 2.15 defines it: `ImageDataGenerator` (`flow`,
`flow_from_directory`, `fit`, the random transforms), its `NumpyArrayIterator` /
`DirectoryIterator`, and the transform functions.

Randomness comes from numpy's global generator, seeded as Keras seeds it, so a seeded
generator gives Keras' batches. Where we differ: Keras resamples with SciPy
(`ndimage.affine_transform`) and fails without it; we resample in numpy, with SciPy's
results for `interpolation_order=1` (Keras' default) in all four fill modes; other orders
raise NotImplementedError. `flow_from_dataframe` is not implemented (no pandas).
"""
import os
import threading
import warnings

import numpy as np

from tfcompat._api import tf_export
from tfcompat.keras import backend
from tfcompat.keras.utils import image_utils
from tfcompat.keras.utils.data_utils import Sequence

_FILL_MODES = ("constant", "nearest", "reflect", "wrap")


def _interpolation_taps(coords, size, fill_mode):
    """For sampling coordinates along one axis of length `size`: the two neighbouring
    indices, the weight of the upper one, and where the sample is the constant (SciPy's
    order-1 boundary rules)."""
    outside = (coords < 0) | (coords > size - 1)
    if fill_mode == "nearest" or size == 1:
        coords = np.clip(coords, 0, size - 1)
    elif fill_mode == "wrap":
        coords = np.mod(coords, size - 1)
    lower = np.floor(coords)
    weight = coords - lower
    lower = lower.astype(np.int64)
    taps = []
    for index in (lower, lower + 1):
        if fill_mode == "reflect":
            index = np.mod(index, 2 * size)
            index = np.where(index >= size, 2 * size - 1 - index, index)
        taps.append(np.clip(index, 0, size - 1))
    return taps[0], taps[1], weight, outside


def _affine_resample(channel, matrix, offset, fill_mode, cval):
    """SciPy's `ndimage.affine_transform(channel, matrix, offset, order=1, mode=fill_mode,
    cval=cval)`: output[o] = bilinear sample of `channel` at `matrix @ o + offset`."""
    rows, cols = channel.shape
    grid = np.stack(np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij"), 0)
    source = np.tensordot(matrix, grid, axes=1) + np.reshape(offset, (2, 1, 1))
    r0, r1, wr, r_out = _interpolation_taps(source[0], rows, fill_mode)
    c0, c1, wc, c_out = _interpolation_taps(source[1], cols, fill_mode)
    sampled = ((1 - wr) * ((1 - wc) * channel[r0, c0] + wc * channel[r0, c1])
               + wr * ((1 - wc) * channel[r1, c0] + wc * channel[r1, c1]))
    if fill_mode == "constant":
        sampled = np.where(r_out | c_out, cval, sampled)
    return sampled.astype(channel.dtype)


def transform_matrix_offset_center(matrix, x, y):
    """`matrix` applied about the image centre ((x - 1) / 2, (y - 1) / 2)."""
    o_x, o_y = float(x) / 2 - 0.5, float(y) / 2 - 0.5
    offset = np.array([[1, 0, o_x], [0, 1, o_y], [0, 0, 1]])
    reset = np.array([[1, 0, -o_x], [0, 1, -o_y], [0, 0, 1]])
    return offset @ matrix @ reset


@tf_export("keras.preprocessing.image.apply_affine_transform")
def apply_affine_transform(x, theta=0, tx=0, ty=0, shear=0, zx=1, zy=1, row_axis=1,
                           col_axis=2, channel_axis=0, fill_mode="nearest", cval=0.0,
                           order=1):
    """Keras' affine transform of one image (rank 3): rotation by `theta` degrees, shift
    (`tx` rows, `ty` columns), `shear` degrees and zoom, about the centre."""
    if np.unique([row_axis, col_axis, channel_axis]).size != 3:
        raise ValueError("'row_axis', 'col_axis', and 'channel_axis' must be distinct")
    if {row_axis, col_axis, channel_axis} != {0, 1, 2}:
        raise ValueError("Invalid axis' indices: %s"
                         % ({row_axis, col_axis, channel_axis} - {0, 1, 2}))
    if x.ndim != 3:
        raise ValueError("Input arrays must be multi-channel 2D images.")
    if channel_axis not in [0, 2]:
        raise ValueError("Channels are allowed and the first and last dimensions.")
    parts = []
    if theta != 0:
        angle = np.deg2rad(theta)
        parts.append(np.array([[np.cos(angle), -np.sin(angle), 0],
                               [np.sin(angle), np.cos(angle), 0], [0, 0, 1]]))
    if tx != 0 or ty != 0:
        parts.append(np.array([[1, 0, tx], [0, 1, ty], [0, 0, 1]]))
    if shear != 0:
        angle = np.deg2rad(shear)
        parts.append(np.array([[1, -np.sin(angle), 0], [0, np.cos(angle), 0], [0, 0, 1]]))
    if zx != 1 or zy != 1:
        parts.append(np.array([[zx, 0, 0], [0, zy, 0], [0, 0, 1]]))
    if not parts:
        return x
    if order != 1:
        raise NotImplementedError("keras.preprocessing.image.apply_affine_transform with "
                                  "order=%s: tfcompat resamples with order 1 only" % (order,))
    if fill_mode not in _FILL_MODES:
        raise ValueError("Unknown fill_mode %r; expected one of %s" % (fill_mode, _FILL_MODES))
    matrix = parts[0]
    for part in parts[1:]:
        matrix = matrix @ part
    matrix = transform_matrix_offset_center(matrix, x.shape[row_axis], x.shape[col_axis])
    if col_axis > row_axis:
        matrix[:, [0, 1]] = matrix[:, [1, 0]]
        matrix[[0, 1]] = matrix[[1, 0]]
    channels = np.rollaxis(x, channel_axis, 0)
    resampled = np.stack([_affine_resample(channel, matrix[:2, :2], matrix[:2, 2], fill_mode,
                                           cval) for channel in channels], axis=0)
    return np.rollaxis(resampled, 0, channel_axis + 1)


def _random_affine(x, row_axis, col_axis, channel_axis, fill_mode, cval,
                   interpolation_order, **transform):
    return apply_affine_transform(x, row_axis=row_axis, col_axis=col_axis,
                                  channel_axis=channel_axis, fill_mode=fill_mode, cval=cval,
                                  order=interpolation_order, **transform)


@tf_export("keras.preprocessing.image.random_rotation")
def random_rotation(x, rg, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest",
                    cval=0.0, interpolation_order=1):
    """Rotation by a uniform angle in [-rg, rg] degrees."""
    return _random_affine(x, row_axis, col_axis, channel_axis, fill_mode, cval,
                          interpolation_order, theta=np.random.uniform(-rg, rg))


@tf_export("keras.preprocessing.image.random_shift")
def random_shift(x, wrg, hrg, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest",
                 cval=0.0, interpolation_order=1):
    """Shift by uniform fractions of the height (`hrg`) and width (`wrg`)."""
    tx = np.random.uniform(-hrg, hrg) * x.shape[row_axis]
    ty = np.random.uniform(-wrg, wrg) * x.shape[col_axis]
    return _random_affine(x, row_axis, col_axis, channel_axis, fill_mode, cval,
                          interpolation_order, tx=tx, ty=ty)


@tf_export("keras.preprocessing.image.random_shear")
def random_shear(x, intensity, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest",
                 cval=0.0, interpolation_order=1):
    """Shear by a uniform angle in [-intensity, intensity] degrees."""
    return _random_affine(x, row_axis, col_axis, channel_axis, fill_mode, cval,
                          interpolation_order,
                          shear=np.random.uniform(-intensity, intensity))


@tf_export("keras.preprocessing.image.random_zoom")
def random_zoom(x, zoom_range, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest",
                cval=0.0, interpolation_order=1):
    """Zoom by two uniform factors in `zoom_range` (rows, columns)."""
    if len(zoom_range) != 2:
        raise ValueError("`zoom_range` should be a tuple or list of two floats. Received: %s"
                         % (zoom_range,))
    if zoom_range[0] == 1 and zoom_range[1] == 1:
        zx, zy = 1, 1
    else:
        zx, zy = np.random.uniform(zoom_range[0], zoom_range[1], 2)
    return _random_affine(x, row_axis, col_axis, channel_axis, fill_mode, cval,
                          interpolation_order, zx=zx, zy=zy)


@tf_export("keras.preprocessing.image.apply_channel_shift")
def apply_channel_shift(x, intensity, channel_axis=0):
    """Adds `intensity` to every channel, clipped to the whole image's range (so, as in
    Keras, the result does not depend on `channel_axis`)."""
    low, high = np.min(x), np.max(x)
    return np.clip(x + intensity, low, high)


@tf_export("keras.preprocessing.image.random_channel_shift")
def random_channel_shift(x, intensity_range, channel_axis=0):
    """`apply_channel_shift` by a uniform intensity in [-range, range]."""
    intensity = np.random.uniform(-intensity_range, intensity_range)
    return apply_channel_shift(x, intensity, channel_axis=channel_axis)


@tf_export("keras.preprocessing.image.apply_brightness_shift")
def apply_brightness_shift(x, brightness, scale=True):
    """PIL's `ImageEnhance.Brightness(...).enhance(brightness)` of the image, as Keras."""
    try:
        from PIL import ImageEnhance  # in-function: PIL is an optional dependency, as in Keras
    except ImportError:
        raise ImportError("Using brightness shifts requires PIL. Install PIL or Pillow.") \
            from None
    x_min, x_max = np.min(x), np.max(x)
    local_scale = (x_min < 0) or (x_max > 255)
    image = image_utils.array_to_img(x, scale=local_scale or scale)
    x = image_utils.img_to_array(ImageEnhance.Brightness(image).enhance(brightness))
    if not scale and local_scale:
        x = x / 255 * (x_max - x_min) + x_min
    return x


@tf_export("keras.preprocessing.image.random_brightness")
def random_brightness(x, brightness_range, scale=True):
    """`apply_brightness_shift` by a uniform factor in `brightness_range`."""
    if len(brightness_range) != 2:
        raise ValueError("`brightness_range should be tuple or list of two floats. "
                         "Received: %s" % (brightness_range,))
    brightness = np.random.uniform(brightness_range[0], brightness_range[1])
    return apply_brightness_shift(x, brightness, scale)


def _flip_axis(x, axis):
    return np.flip(np.asarray(x), axis)


@tf_export("keras.preprocessing.image.Iterator")
class Iterator(Sequence):
    """Keras' batch iterator over `n` samples: an endless `next()` stream (the order
    reshuffled each pass) and a `Sequence` (`len`, `[i]`); with `seed`, numpy's generator is
    reseeded with `seed + batches seen` before each batch, as Keras does."""

    white_list_formats = ("png", "jpg", "jpeg", "bmp", "ppm", "tif", "tiff")

    def __init__(self, n, batch_size, shuffle, seed):
        self.n = n
        self.batch_size = batch_size
        self.seed = seed
        self.shuffle = shuffle
        self.batch_index = 0
        self.total_batches_seen = 0
        self.lock = threading.Lock()
        self.index_array = None
        self.index_generator = self._flow_index()

    def _set_index_array(self):
        self.index_array = (np.random.permutation(self.n) if self.shuffle
                            else np.arange(self.n))

    def __getitem__(self, idx):
        if idx >= len(self):
            raise ValueError("Asked to retrieve element %d, but the Sequence has length %d"
                             % (idx, len(self)))
        if self.seed is not None:
            np.random.seed(self.seed + self.total_batches_seen)
        self.total_batches_seen += 1
        if self.index_array is None:
            self._set_index_array()
        return self._get_batches_of_transformed_samples(
            self.index_array[self.batch_size * idx:self.batch_size * (idx + 1)])

    def __len__(self):
        return (self.n + self.batch_size - 1) // self.batch_size

    def on_epoch_end(self):
        self._set_index_array()

    def reset(self):
        self.batch_index = 0

    def _flow_index(self):
        self.reset()
        while True:
            if self.seed is not None:
                np.random.seed(self.seed + self.total_batches_seen)
            if self.batch_index == 0:
                self._set_index_array()
            current = (self.batch_index * self.batch_size) % self.n if self.n else 0
            self.batch_index = (self.batch_index + 1
                                if self.n > current + self.batch_size else 0)
            self.total_batches_seen += 1
            yield self.index_array[current:current + self.batch_size]

    def __iter__(self):
        return self

    def __next__(self):
        return self.next()

    def next(self):
        """The next batch of the endless stream."""
        with self.lock:
            index_array = next(self.index_generator)
        return self._get_batches_of_transformed_samples(index_array)

    def _get_batches_of_transformed_samples(self, index_array):
        raise NotImplementedError


def _augment(generator, x):
    params = generator.get_random_transform(x.shape)
    return generator.standardize(generator.apply_transform(x, params))


def _save_batch(batch_x, index_array, data_format, directory, prefix, file_format, bound):
    for image, index in zip(batch_x, index_array):
        name = "%s_%d_%d.%s" % (prefix, index, np.random.randint(bound), file_format)
        image_utils.array_to_img(image, data_format, scale=True).save(
            os.path.join(directory, name))


@tf_export("keras.preprocessing.image.NumpyArrayIterator")
class NumpyArrayIterator(Iterator):
    """Batches of augmented images from a rank-4 array (`x` may be `(images, extra arrays)`,
    passed through), with `y` and `sample_weight` when given."""

    def __init__(self, x, y, image_data_generator, batch_size=32, shuffle=False,
                 sample_weight=None, seed=None, data_format=None, save_to_dir=None,
                 save_prefix="", save_format="png", subset=None, ignore_class_split=False,
                 dtype=None):
        data_format = data_format or backend.image_data_format()
        self.dtype = dtype or backend.floatx()
        x_misc = []
        if isinstance(x, (tuple, list)):
            x_misc = ([np.asarray(x[1])] if not isinstance(x[1], list)
                      else [np.asarray(extra) for extra in x[1]])
            x = x[0]
            for extra in x_misc:
                if len(x) != len(extra):
                    raise ValueError("All of the arrays in `x` should have the same length. "
                                     "Found a pair with: len(x[0]) = %s, len(x[?]) = %s"
                                     % (len(x), len(extra)))
        if y is not None and len(x) != len(y):
            raise ValueError("`x` (images tensor) and `y` (labels) should have the same "
                             "length. Found: x.shape = %s, y.shape = %s"
                             % (np.asarray(x).shape, np.asarray(y).shape))
        if sample_weight is not None and len(x) != len(sample_weight):
            raise ValueError("`x` (images tensor) and `sample_weight` should have the same "
                             "length. Found: x.shape = %s, sample_weight.shape = %s"
                             % (np.asarray(x).shape, np.asarray(sample_weight).shape))
        if subset is not None:
            if subset not in {"training", "validation"}:
                raise ValueError("Invalid subset name:", subset,
                                 '; expected "training" or "validation".')
            split = int(len(x) * image_data_generator._validation_split)
            if (y is not None and not ignore_class_split
                    and not np.array_equal(np.unique(y[:split]), np.unique(y[split:]))):
                raise ValueError("Training and validation subsets have different number of "
                                 "classes after the split. If your numpy arrays are sorted "
                                 "by the label, you might want to shuffle them.")
            part = slice(None, split) if subset == "validation" else slice(split, None)
            x = x[part]
            x_misc = [np.asarray(extra[part]) for extra in x_misc]
            y = None if y is None else y[part]
        self.x = np.asarray(x, dtype=self.dtype)
        self.x_misc = x_misc
        if self.x.ndim != 4:
            raise ValueError("Input data in `NumpyArrayIterator` should have rank 4. You "
                             "passed an array with shape", self.x.shape)
        channels_axis = 3 if data_format == "channels_last" else 1
        if self.x.shape[channels_axis] not in {1, 3, 4}:
            warnings.warn('NumpyArrayIterator is set to use the data format convention "%s" '
                          "(channels on axis %d), i.e. expected either 1, 3, or 4 channels "
                          "on axis %d. However, it was passed an array with shape %s (%d "
                          "channels)." % (data_format, channels_axis, channels_axis,
                                          self.x.shape, self.x.shape[channels_axis]))
        self.y = None if y is None else np.asarray(y)
        self.sample_weight = None if sample_weight is None else np.asarray(sample_weight)
        self.image_data_generator = image_data_generator
        self.data_format = data_format
        self.save_to_dir = save_to_dir
        self.save_prefix = save_prefix
        self.save_format = save_format
        super().__init__(self.x.shape[0], batch_size, shuffle, seed)

    def _get_batches_of_transformed_samples(self, index_array):
        batch_x = np.zeros((len(index_array),) + self.x.shape[1:], dtype=self.dtype)
        for i, j in enumerate(index_array):
            batch_x[i] = _augment(self.image_data_generator, self.x[j].astype(self.dtype))
        if self.save_to_dir:
            _save_batch(batch_x, index_array, self.data_format, self.save_to_dir,
                        self.save_prefix, self.save_format, 1e4)
        extras = [extra[index_array] for extra in self.x_misc]
        inputs = [batch_x] + extras if extras else batch_x
        if self.y is None:
            return inputs
        if self.sample_weight is None:
            return inputs, self.y[index_array]
        return inputs, self.y[index_array], self.sample_weight[index_array]


_CHANNELS = {"rgb": 3, "rgba": 4, "grayscale": 1}


@tf_export("keras.preprocessing.image.DirectoryIterator")
class DirectoryIterator(Iterator):
    """Batches of augmented images read from the class subdirectories of `directory` (each
    sorted subdirectory a class), with labels as `class_mode` says."""

    allowed_class_modes = {"categorical", "binary", "sparse", "input", None}

    def __init__(self, directory, image_data_generator, target_size=(256, 256),
                 color_mode="rgb", classes=None, class_mode="categorical", batch_size=32,
                 shuffle=True, seed=None, data_format=None, save_to_dir=None, save_prefix="",
                 save_format="png", follow_links=False, subset=None, interpolation="nearest",
                 keep_aspect_ratio=False, dtype=None):
        self.data_format = data_format or backend.image_data_format()
        self.dtype = dtype or backend.floatx()
        self.image_data_generator = image_data_generator
        self.target_size = tuple(target_size)
        self.keep_aspect_ratio = keep_aspect_ratio
        if color_mode not in _CHANNELS:
            raise ValueError("Invalid color mode:", color_mode,
                             '; expected "rgb", "rgba", or "grayscale".')
        self.color_mode = color_mode
        channels = (_CHANNELS[color_mode],)
        self.image_shape = (self.target_size + channels if self.data_format == "channels_last"
                            else channels + self.target_size)
        self.save_to_dir = save_to_dir
        self.save_prefix = save_prefix
        self.save_format = save_format
        self.interpolation = interpolation
        if subset is None:
            self.split = None
        elif subset == "validation":
            self.split = (0, image_data_generator._validation_split)
        elif subset == "training":
            self.split = (image_data_generator._validation_split, 1)
        else:
            raise ValueError('Invalid subset name: %s;expected "training" or "validation"'
                             % (subset,))
        self.subset = subset
        self.directory = directory
        if class_mode not in self.allowed_class_modes:
            raise ValueError("Invalid class_mode: %s; expected one of: %s"
                             % (class_mode, self.allowed_class_modes))
        self.class_mode = class_mode
        if not classes:
            classes = [name for name in sorted(os.listdir(directory))
                       if os.path.isdir(os.path.join(directory, name))]
        self.num_classes = len(classes)
        self.class_indices = {name: index for index, name in enumerate(classes)}
        self.filenames, labels = [], []
        for name in classes:
            files = self._files_of_class(os.path.join(directory, name), follow_links)
            self.filenames += files
            labels += [self.class_indices[name]] * len(files)
        self.samples = len(self.filenames)
        self.classes = np.array(labels, dtype="int32")
        print("Found %d images belonging to %d classes." % (self.samples, self.num_classes))
        self._filepaths = [os.path.join(directory, name) for name in self.filenames]
        super().__init__(self.samples, batch_size, shuffle, seed)

    def _files_of_class(self, class_dir, follow_links):
        """`<class>/<relative path>` of the class's image files (sorted walk), cut to
        this subset's share of them."""
        found = []
        for root, _, files in sorted(os.walk(class_dir, followlinks=follow_links),
                                     key=lambda entry: entry[0]):
            found += [os.path.join(root, name) for name in sorted(files)
                      if name.lower().endswith(self.white_list_formats)]
        if self.split:
            found = found[int(self.split[0] * len(found)):int(self.split[1] * len(found))]
        base = os.path.basename(class_dir)
        return [os.path.join(base, os.path.relpath(path, class_dir)) for path in found]

    @property
    def filepaths(self):
        return self._filepaths

    @property
    def labels(self):
        return self.classes

    @property
    def sample_weight(self):
        return None

    def _get_batches_of_transformed_samples(self, index_array):
        batch_x = np.zeros((len(index_array),) + self.image_shape, dtype=self.dtype)
        for i, j in enumerate(index_array):
            image = image_utils.load_img(self._filepaths[j], color_mode=self.color_mode,
                                         target_size=self.target_size,
                                         interpolation=self.interpolation,
                                         keep_aspect_ratio=self.keep_aspect_ratio)
            x = image_utils.img_to_array(image, data_format=self.data_format)
            image.close()
            if self.image_data_generator:
                x = _augment(self.image_data_generator, x)
            batch_x[i] = x
        if self.save_to_dir:
            _save_batch(batch_x, index_array, self.data_format, self.save_to_dir,
                        self.save_prefix, self.save_format, 1e7)
        if self.class_mode == "input":
            return batch_x, batch_x.copy()
        if self.class_mode in {"binary", "sparse"}:
            return batch_x, self.classes[index_array].astype(self.dtype)
        if self.class_mode == "categorical":
            batch_y = np.zeros((len(batch_x), len(self.class_indices)), dtype=self.dtype)
            batch_y[np.arange(len(batch_x)), self.classes[index_array]] = 1.0
            return batch_x, batch_y
        return batch_x


@tf_export("keras.preprocessing.image.ImageDataGenerator")
class ImageDataGenerator(object):
    """Keras 2's real-time image augmentation: random rotation / shifts / shear / zoom /
    flips / channel and brightness shifts drawn per image from numpy's generator, then
    `rescale`, sample- and feature-wise normalisation (`fit` computes the latter)."""

    def __init__(self, featurewise_center=False, samplewise_center=False,
                 featurewise_std_normalization=False, samplewise_std_normalization=False,
                 zca_whitening=False, zca_epsilon=1e-6, rotation_range=0,
                 width_shift_range=0.0, height_shift_range=0.0, brightness_range=None,
                 shear_range=0.0, zoom_range=0.0, channel_shift_range=0.0,
                 fill_mode="nearest", cval=0.0, horizontal_flip=False, vertical_flip=False,
                 rescale=None, preprocessing_function=None, data_format=None,
                 validation_split=0.0, interpolation_order=1, dtype=None):
        data_format = data_format or backend.image_data_format()
        self.dtype = dtype or backend.floatx()
        self.featurewise_center = featurewise_center
        self.samplewise_center = samplewise_center
        self.featurewise_std_normalization = featurewise_std_normalization
        self.samplewise_std_normalization = samplewise_std_normalization
        self.zca_whitening = zca_whitening
        self.zca_epsilon = zca_epsilon
        self.rotation_range = rotation_range
        self.width_shift_range = width_shift_range
        self.height_shift_range = height_shift_range
        self.shear_range = shear_range
        self.channel_shift_range = channel_shift_range
        self.fill_mode = fill_mode
        self.cval = cval
        self.horizontal_flip = horizontal_flip
        self.vertical_flip = vertical_flip
        self.rescale = rescale
        self.preprocessing_function = preprocessing_function
        self.interpolation_order = interpolation_order
        if data_format not in {"channels_last", "channels_first"}:
            raise ValueError('`data_format` should be `"channels_last"` (channel after row and '
                             'column) or `"channels_first"` (channel before row and column). '
                             "Received: %s" % data_format)
        self.data_format = data_format
        self.channel_axis, self.row_axis, self.col_axis = (
            (1, 2, 3) if data_format == "channels_first" else (3, 1, 2))
        if validation_split and not 0 < validation_split < 1:
            raise ValueError("`validation_split` must be strictly between 0 and 1.  "
                             "Received: %s" % validation_split)
        self._validation_split = validation_split
        self.mean = None
        self.std = None
        self.zca_whitening_matrix = None
        if isinstance(zoom_range, (float, int)):
            self.zoom_range = [1 - zoom_range, 1 + zoom_range]
        elif len(zoom_range) == 2 and all(isinstance(v, (float, int)) for v in zoom_range):
            self.zoom_range = [zoom_range[0], zoom_range[1]]
        else:
            raise ValueError("`zoom_range` should be a float or a tuple or list of two "
                             "floats. Received: %s" % (zoom_range,))
        overrides = []
        if zca_whitening and not featurewise_center:
            self.featurewise_center = True
            overrides.append(("zca_whitening", "featurewise_center"))
        if zca_whitening and featurewise_std_normalization:
            self.featurewise_std_normalization = False
            overrides.append(("zca_whitening", "featurewise_std_normalization"))
        if featurewise_std_normalization and not featurewise_center:
            self.featurewise_center = True
            overrides.append(("featurewise_std_normalization", "featurewise_center"))
        if samplewise_std_normalization and not samplewise_center:
            self.samplewise_center = True
            overrides.append(("samplewise_std_normalization", "samplewise_center"))
        for setting, overridden in overrides:
            warnings.warn("This ImageDataGenerator specifies `%s`, which overrides setting "
                          "of `%s`." % (setting, overridden))
        if brightness_range is not None and (not isinstance(brightness_range, (tuple, list))
                                             or len(brightness_range) != 2):
            raise ValueError("`brightness_range should be tuple or list of two floats. "
                             "Received: %s" % (brightness_range,))
        self.brightness_range = brightness_range

    def flow(self, x, y=None, batch_size=32, shuffle=True, sample_weight=None, seed=None,
             save_to_dir=None, save_prefix="", save_format="png", ignore_class_split=False,
             subset=None):
        """A `NumpyArrayIterator` of augmented batches of `x` (and `y`)."""
        return NumpyArrayIterator(x, y, self, batch_size=batch_size, shuffle=shuffle,
                                  sample_weight=sample_weight, seed=seed,
                                  data_format=self.data_format, save_to_dir=save_to_dir,
                                  save_prefix=save_prefix, save_format=save_format,
                                  ignore_class_split=ignore_class_split, subset=subset,
                                  dtype=self.dtype)

    def flow_from_directory(self, directory, target_size=(256, 256), color_mode="rgb",
                            classes=None, class_mode="categorical", batch_size=32,
                            shuffle=True, seed=None, save_to_dir=None, save_prefix="",
                            save_format="png", follow_links=False, subset=None,
                            interpolation="nearest", keep_aspect_ratio=False):
        """A `DirectoryIterator` of augmented batches of the images under `directory`."""
        return DirectoryIterator(directory, self, target_size=target_size,
                                 color_mode=color_mode, keep_aspect_ratio=keep_aspect_ratio,
                                 classes=classes, class_mode=class_mode,
                                 data_format=self.data_format, batch_size=batch_size,
                                 shuffle=shuffle, seed=seed, save_to_dir=save_to_dir,
                                 save_prefix=save_prefix, save_format=save_format,
                                 follow_links=follow_links, subset=subset,
                                 interpolation=interpolation, dtype=self.dtype)

    def flow_from_dataframe(self, *args, **kwargs):
        raise NotImplementedError("keras.preprocessing.image.ImageDataGenerator."
                                  "flow_from_dataframe is not implemented in tfcompat")

    def standardize(self, x):
        """`preprocessing_function`, `rescale`, then the sample- and feature-wise
        normalisations (in place where Keras works in place)."""
        if self.preprocessing_function:
            x = self.preprocessing_function(x)
        if self.rescale:
            x *= self.rescale
        if self.samplewise_center:
            x -= np.mean(x, keepdims=True)
        if self.samplewise_std_normalization:
            x /= np.std(x, keepdims=True) + 1e-6
        for enabled, fitted, name in (
                (self.featurewise_center, self.mean, "featurewise_center"),
                (self.featurewise_std_normalization, self.std,
                 "featurewise_std_normalization"),
                (self.zca_whitening, self.zca_whitening_matrix, "zca_whitening")):
            if enabled and fitted is None:
                warnings.warn("This ImageDataGenerator specifies `%s`, but it hasn't been "
                              "fit on any training data. Fit it first by calling "
                              "`.fit(numpy_data)`." % name)
        if self.featurewise_center and self.mean is not None:
            x -= self.mean
        if self.featurewise_std_normalization and self.std is not None:
            x /= self.std + 1e-6
        if self.zca_whitening and self.zca_whitening_matrix is not None:
            flat = x.reshape(-1, np.prod(x.shape[-3:]))
            x = np.reshape(flat @ self.zca_whitening_matrix, x.shape)
        return x

    def _random_shift(self, shift_range, size):
        """Keras' draw of one shift: a choice (with a random sign) from an int or a list,
        else a uniform float; fractions below 1 are of the image size."""
        if not shift_range:
            return 0
        try:
            shift = np.random.choice(shift_range)
            shift *= np.random.choice([-1, 1])
        except ValueError:
            shift = np.random.uniform(-shift_range, shift_range)
        if np.max(shift_range) < 1:
            shift *= size
        return shift

    def get_random_transform(self, img_shape, seed=None):
        """The random transform parameters for one image, drawn in Keras' order."""
        if seed is not None:
            np.random.seed(seed)
        theta = (np.random.uniform(-self.rotation_range, self.rotation_range)
                 if self.rotation_range else 0)
        tx = self._random_shift(self.height_shift_range, img_shape[self.row_axis - 1])
        ty = self._random_shift(self.width_shift_range, img_shape[self.col_axis - 1])
        shear = (np.random.uniform(-self.shear_range, self.shear_range)
                 if self.shear_range else 0)
        if self.zoom_range[0] == 1 and self.zoom_range[1] == 1:
            zx, zy = 1, 1
        else:
            zx, zy = np.random.uniform(self.zoom_range[0], self.zoom_range[1], 2)
        flip_horizontal = (np.random.random() < 0.5) * self.horizontal_flip
        flip_vertical = (np.random.random() < 0.5) * self.vertical_flip
        channel_shift_intensity = (
            np.random.uniform(-self.channel_shift_range, self.channel_shift_range)
            if self.channel_shift_range != 0 else None)
        brightness = (np.random.uniform(self.brightness_range[0], self.brightness_range[1])
                      if self.brightness_range is not None else None)
        return {"theta": theta, "tx": tx, "ty": ty, "shear": shear, "zx": zx, "zy": zy,
                "flip_horizontal": flip_horizontal, "flip_vertical": flip_vertical,
                "channel_shift_intensity": channel_shift_intensity, "brightness": brightness}

    def apply_transform(self, x, transform_parameters):
        """Applies `get_random_transform`'s parameters to one image: the affine part, the
        channel shift, the flips, then the brightness."""
        row_axis, col_axis = self.row_axis - 1, self.col_axis - 1
        channel_axis = self.channel_axis - 1
        params = transform_parameters
        x = apply_affine_transform(
            x, params.get("theta", 0), params.get("tx", 0), params.get("ty", 0),
            params.get("shear", 0), params.get("zx", 1), params.get("zy", 1),
            row_axis=row_axis, col_axis=col_axis, channel_axis=channel_axis,
            fill_mode=self.fill_mode, cval=self.cval, order=self.interpolation_order)
        if params.get("channel_shift_intensity") is not None:
            x = apply_channel_shift(x, params["channel_shift_intensity"], channel_axis)
        if params.get("flip_horizontal", False):
            x = _flip_axis(x, col_axis)
        if params.get("flip_vertical", False):
            x = _flip_axis(x, row_axis)
        if params.get("brightness") is not None:
            x = apply_brightness_shift(x, params["brightness"], False)
        return x

    def random_transform(self, x, seed=None):
        """One image randomly transformed."""
        return self.apply_transform(x, self.get_random_transform(x.shape, seed))

    def fit(self, x, augment=False, rounds=1, seed=None):
        """Computes the feature-wise mean / std (per channel) and the ZCA matrix from the
        rank-4 sample `x` (rescaled, and augmented `rounds` times if `augment`)."""
        x = np.asarray(x, dtype=self.dtype)
        if x.ndim != 4:
            raise ValueError("Input to `.fit()` should have rank 4. Got array with shape: "
                             + str(x.shape))
        if x.shape[self.channel_axis] not in {1, 3, 4}:
            warnings.warn("Expected input to be images (as Numpy array) following the data "
                          'format convention "%s" (channels on axis %d), i.e. expected either '
                          "1, 3 or 4 channels on axis %d. However, it was passed an array "
                          "with shape %s (%d channels)."
                          % (self.data_format, self.channel_axis, self.channel_axis,
                             x.shape, x.shape[self.channel_axis]))
        if seed is not None:
            np.random.seed(seed)
        x = np.copy(x)
        if self.rescale:
            x *= self.rescale
        if augment:
            augmented = np.zeros((rounds * x.shape[0],) + x.shape[1:], dtype=self.dtype)
            for r in range(rounds):
                for i in range(x.shape[0]):
                    augmented[i + r * x.shape[0]] = self.random_transform(x[i])
            x = augmented
        broadcast_shape = [1, 1, 1]
        broadcast_shape[self.channel_axis - 1] = x.shape[self.channel_axis]
        if self.featurewise_center:
            self.mean = np.reshape(np.mean(x, axis=(0, self.row_axis, self.col_axis)),
                                   broadcast_shape)
            x -= self.mean
        if self.featurewise_std_normalization:
            self.std = np.reshape(np.std(x, axis=(0, self.row_axis, self.col_axis)),
                                  broadcast_shape)
            x /= self.std + 1e-6
        if self.zca_whitening:
            flat = np.reshape(x, (len(x), -1))
            u, s, _ = np.linalg.svd(flat.T, full_matrices=False)
            s_inv = np.sqrt(len(x)) / (s + self.zca_epsilon)
            self.zca_whitening_matrix = (u * s_inv).dot(u.T)
