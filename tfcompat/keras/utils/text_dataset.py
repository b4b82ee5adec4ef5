"""`tf.keras.utils.text_dataset_from_directory` as Keras 2.15 defines it: each `.txt` file
is one string sample (cut to `max_length` bytes), labelled by its subdirectory.

Where we differ: as in `image_dataset_from_directory`, `Dataset.shuffle`'s stream is ours.
"""
import numpy as np

from tfcompat._api import tf_export
from tfcompat.data.dataset_ops import Dataset
from tfcompat.io import parsing_ops
from tfcompat.keras.utils import dataset_utils
from tfcompat.ops import string_ops


@tf_export("keras.utils.text_dataset_from_directory",
           "keras.preprocessing.text_dataset_from_directory")
def text_dataset_from_directory(directory, labels="inferred", label_mode="int",
                                class_names=None, batch_size=32, max_length=None,
                                shuffle=True, seed=None, validation_split=None, subset=None,
                                follow_links=False):
    """A `tf.data.Dataset` of string batches (and labels as in
    `image_dataset_from_directory`) from the `.txt` files of `directory`'s class
    subdirectories; `.class_names` lists the classes."""
    if labels not in ("inferred", None):
        if not isinstance(labels, (list, tuple)):
            raise ValueError('`labels` argument should be a list/tuple of integer labels, of '
                             'the same size as the number of text files in the target '
                             'directory. If you wish to infer the labels from the '
                             'subdirectory names in the target directory, pass '
                             '`labels="inferred"`. If you wish to get a dataset that only '
                             'contains text samples (no labels), pass `labels=None`.')
        if class_names:
            raise ValueError("You can only pass `class_names` if `labels=\"inferred\"`. "
                             "Received: labels=%s, and class_names=%s" % (labels, class_names))
    if label_mode not in {"int", "categorical", "binary", None}:
        raise ValueError('`label_mode` argument must be one of "int", "categorical", '
                         '"binary", or None. Received: label_mode=%s' % (label_mode,))
    if labels is None or label_mode is None:
        labels = label_mode = None
    dataset_utils.check_validation_split_arg(validation_split, subset, shuffle, seed)
    if seed is None:
        seed = np.random.randint(1e6)
    paths, labels, class_names = dataset_utils.index_directory(
        directory, labels, formats=(".txt",), class_names=class_names, shuffle=shuffle,
        seed=seed, follow_links=follow_links)
    if label_mode == "binary" and len(class_names) != 2:
        raise ValueError('When passing `label_mode="binary"`, there must be exactly 2 '
                         "class_names. Received: class_names=%s" % (class_names,))

    def read(path):
        text = parsing_ops.read_file(path)
        return text if max_length is None else string_ops.substr(text, 0, max_length)

    def make_dataset(part_paths, part_labels):
        texts = Dataset.from_tensor_slices(list(part_paths)).map(read)
        if not label_mode:
            return texts
        return Dataset.zip((texts, dataset_utils.labels_to_dataset(
            part_labels, label_mode, len(class_names))))

    parts = dataset_utils.split_for_subsets(paths, labels, validation_split, subset)
    return dataset_utils.finish_datasets(
        parts, make_dataset, class_names, batch_size, shuffle, seed, subset,
        "No text files found in directory %s. Allowed format: .txt" % (directory,))
