"""`tf.keras.utils.image_dataset_from_directory` as Keras 2.15 defines it: images decoded
with `tf.io.decode_image`, resized with `tf.image.resize` (or `smart_resize`).

Where we differ: file order and the `validation_split` are Keras' exactly (numpy's
RandomState), but `shuffle` also reshuffles through `Dataset.shuffle`, whose random stream
is ours, not TF's.
"""
import numpy as np

from tfcompat._api import tf_export
from tfcompat.data.dataset_ops import Dataset
from tfcompat.io import parsing_ops
from tfcompat.keras.utils import dataset_utils, image_utils
from tfcompat.ops import image_ops

ALLOWLIST_FORMATS = (".bmp", ".gif", ".jpeg", ".jpg", ".png")
_CHANNELS = {"rgb": 3, "rgba": 4, "grayscale": 1}


def _images_dataset(paths, image_size, num_channels, interpolation, crop_to_aspect_ratio):
    def load(path):
        image = image_ops.decode_image(parsing_ops.read_file(path), channels=num_channels,
                                       expand_animations=False)
        if crop_to_aspect_ratio:
            image = image_utils.smart_resize(image, image_size, interpolation=interpolation)
        else:
            image = image_ops.resize(image, image_size, method=interpolation)
        image.set_shape((image_size[0], image_size[1], num_channels))
        return image
    return Dataset.from_tensor_slices(list(paths)).map(load)


@tf_export("keras.utils.image_dataset_from_directory",
           "keras.preprocessing.image_dataset_from_directory")
def image_dataset_from_directory(directory, labels="inferred", label_mode="int",
                                 class_names=None, color_mode="rgb", batch_size=32,
                                 image_size=(256, 256), shuffle=True, seed=None,
                                 validation_split=None, subset=None, interpolation="bilinear",
                                 follow_links=False, crop_to_aspect_ratio=False, **kwargs):
    """A `tf.data.Dataset` of float32 image batches `(batch, height, width, channels)` and
    labels (int32, one-hot float32, or float32 `(batch, 1)` for `binary`) from the images
    of `directory`'s class subdirectories; `.class_names` lists the classes. `subset="both"`
    gives [training, validation]."""
    if "smart_resize" in kwargs:
        crop_to_aspect_ratio = kwargs.pop("smart_resize")
    if kwargs:
        raise TypeError("Unknown keywords argument(s): %s" % (tuple(kwargs),))
    if labels not in ("inferred", None):
        if not isinstance(labels, (list, tuple)):
            raise ValueError('`labels` argument should be a list/tuple of integer labels, of '
                             'the same size as the number of image files in the target '
                             'directory. If you wish to infer the labels from the '
                             'subdirectory names in the target directory, pass '
                             '`labels="inferred"`. If you wish to get a dataset that only '
                             'contains images (no labels), pass `labels=None`.')
        if class_names:
            raise ValueError("You can only pass `class_names` if `labels=\"inferred\"`. "
                             "Received: labels=%s, and class_names=%s" % (labels, class_names))
    if label_mode not in {"int", "categorical", "binary", None}:
        raise ValueError('`label_mode` argument must be one of "int", "categorical", '
                         '"binary", or None. Received: label_mode=%s' % (label_mode,))
    if labels is None or label_mode is None:
        labels = label_mode = None
    if color_mode not in _CHANNELS:
        raise ValueError('`color_mode` must be one of {"rgb", "rgba", "grayscale"}. '
                         "Received: color_mode=%s" % (color_mode,))
    num_channels = _CHANNELS[color_mode]
    dataset_utils.check_validation_split_arg(validation_split, subset, shuffle, seed)
    if seed is None:
        seed = np.random.randint(1e6)
    paths, labels, class_names = dataset_utils.index_directory(
        directory, labels, formats=ALLOWLIST_FORMATS, class_names=class_names,
        shuffle=shuffle, seed=seed, follow_links=follow_links)
    if label_mode == "binary" and len(class_names) != 2:
        raise ValueError('When passing `label_mode="binary"`, there must be exactly 2 '
                         "class_names. Received: class_names=%s" % (class_names,))
    image_size = tuple(image_size)

    def make_dataset(part_paths, part_labels):
        images = _images_dataset(part_paths, image_size, num_channels, interpolation,
                                 crop_to_aspect_ratio)
        if not label_mode:
            return images
        return Dataset.zip((images, dataset_utils.labels_to_dataset(
            part_labels, label_mode, len(class_names))))

    parts = dataset_utils.split_for_subsets(paths, labels, validation_split, subset)
    return dataset_utils.finish_datasets(
        parts, make_dataset, class_names, batch_size, shuffle, seed, subset,
        "No images found in directory %s. Allowed formats: %s"
        % (directory, ALLOWLIST_FORMATS))
