"""Keras 2.15's `keras/utils/dataset_utils.py`: `split_dataset`, and what the
`*_dataset_from_directory` utilities share (indexing a directory of class subdirectories, the
training/validation split, label datasets).
"""
import os
import random

import numpy as np

from tfcompat._api import tf_export
from tfcompat.data.dataset_ops import BatchDataset, Dataset, PaddedBatchDataset
from tfcompat.ops import array_ops


def _split_sizes(left_size, right_size, total_length):
    """Keras' checks and rounding of `left_size` / `right_size` (fractions or counts)."""
    for name, size in (("left_size", left_size), ("right_size", right_size)):
        if size is not None and type(size) not in (int, float):
            raise TypeError("Invalid `%s` Type. Expected: int or float or None, Received: "
                            "type(%s)=%s." % (name, name, type(size)))
    if left_size == 0 and right_size == 0:
        raise ValueError("Both `left_size` and `right_size` are zero. At least one of the "
                         "split sizes must be non-zero.")
    for name, size in (("left_size", left_size), ("right_size", right_size)):
        if (type(size) is int and (size <= 0 or size >= total_length)
                or type(size) is float and (size <= 0 or size >= 1)):
            raise ValueError("`%s` should be either a positive integer smaller than %d, or a "
                             "float within the range `[0, 1]`. Received: %s=%s"
                             % (name, total_length, name, size))
    if type(left_size) is float and type(right_size) is float and left_size + right_size > 1:
        raise ValueError("The sum of `left_size` and `right_size` is greater than 1. It must "
                         "be less than or equal to 1.")
    left, right = (round(size * total_length) if type(size) is float else size
                   for size in (left_size, right_size))
    left = total_length - right if left is None else left
    right = total_length - left if right is None else right
    if left + right > total_length:
        raise ValueError("The sum of `left_size` and `right_size` should be smaller than the "
                         "%d. Received: left_size + right_size = %d" % (total_length,
                                                                         left + right))
    for split, side in ((left, "left"), (right, "right")):
        if split == 0:
            raise ValueError("With `dataset` of length=%d, `left_size`=%s and `right_size`=%s."
                             "Resulting %s side dataset split will be empty. Adjust any of "
                             "the aforementioned parameters" % (total_length, left, right,
                                                                 side))
    return int(left), int(right)


def _samples(dataset):
    """The samples of `dataset` as Keras lists them: rows of an array, tuples across a
    list/tuple of arrays, elements of an (unbatched) Dataset as numpy values."""
    if isinstance(dataset, np.ndarray):
        samples = list(dataset)
    elif isinstance(dataset, (list, tuple)):
        if not dataset or not all(isinstance(part, np.ndarray) for part in dataset):
            raise ValueError("Expected a list/tuple of `numpy.ndarray` objects, Received: %s"
                             % (type(dataset[0]) if dataset else dataset,))
        if any(len(part) != len(dataset[0]) for part in dataset):
            raise ValueError("Received a list of NumPy arrays with different lengths.")
        samples = list(zip(*dataset))
    else:
        if isinstance(dataset, (BatchDataset, PaddedBatchDataset)):
            dataset = dataset.unbatch()
        samples = list(dataset.as_numpy_iterator())
    if not samples:
        raise ValueError("Received an empty Dataset. `dataset` must be a non-empty list/tuple "
                         "of `numpy.ndarray` objects or `tf.data.Dataset` objects.")
    return samples


def _from_samples(samples, original):
    """What Keras slices into the split datasets: rows stacked for an array, a dict of
    lists for dict elements, else one array per position of the samples (`zip(*samples)`,
    as Keras does even for single-tensor elements)."""
    if isinstance(original, np.ndarray):
        return np.stack(samples)
    if isinstance(samples[0], dict):
        return {key: [sample[key] for sample in samples] for key in samples[0]}
    return tuple(np.array(part) for part in zip(*samples))


@tf_export("keras.utils.split_dataset")
def split_dataset(dataset, left_size=None, right_size=None, shuffle=False, seed=None):
    """(left, right) Datasets from a Dataset, an array or a list/tuple of arrays: the first
    `left_size` and last `right_size` samples (counts or fractions, rounded), after a shuffle
    with Python's `random` seeded by `seed` if `shuffle`; a `.batch()`ed dataset's splits
    are batched alike."""
    if not isinstance(dataset, (Dataset, list, tuple, np.ndarray)):
        raise TypeError("The `dataset` argument must be either a `tf.data.Dataset` object or "
                        "a list/tuple of arrays. Received: dataset=%s of type %s"
                        % (dataset, type(dataset)))
    if right_size is None and left_size is None:
        raise ValueError("At least one of the `left_size` or `right_size` must be specified. "
                         "Received: left_size=None and right_size=None")
    samples = _samples(dataset)
    if shuffle:
        if seed is None:
            seed = random.randint(0, int(1e6))
        random.seed(seed)
        random.shuffle(samples)
    left_size, right_size = _split_sizes(left_size, right_size, len(samples))
    splits = []
    for part in (samples[:left_size], samples[-right_size:]):
        split = Dataset.from_tensor_slices(_from_samples(part, dataset))
        if isinstance(dataset, (BatchDataset, PaddedBatchDataset)):
            split = split.batch(dataset._size)
        splits.append(split.prefetch(-1))
    return tuple(splits)


def check_validation_split_arg(validation_split, subset, shuffle, seed):
    """Keras' checks of `validation_split` / `subset` / `seed`."""
    if validation_split and not 0 < validation_split < 1:
        raise ValueError("`validation_split` must be between 0 and 1, received: %s"
                         % (validation_split,))
    if (validation_split or subset) and not (validation_split and subset):
        raise ValueError("If `subset` is set, `validation_split` must be set, and inversely.")
    if subset not in ("training", "validation", "both", None):
        raise ValueError('`subset` must be either "training", "validation" or "both", '
                         "received: %s" % (subset,))
    if validation_split and shuffle and seed is None:
        raise ValueError("If using `validation_split` and shuffling the data, you must "
                         "provide a `seed` argument, to make sure that there is no overlap "
                         "between the training and validation subset.")


def _files_of_class(directory, follow_links, formats):
    """Relative paths (`<class dir>/<path>`) of the files under `directory` whose names end
    with one of `formats`, walked in sorted order as Keras does."""
    class_dir = os.path.basename(directory)
    found = []
    for root, _, files in sorted(os.walk(directory, followlinks=follow_links),
                                 key=lambda entry: entry[0]):
        for name in sorted(files):
            if name.lower().endswith(formats):
                found.append(os.path.join(class_dir,
                                          os.path.relpath(os.path.join(root, name),
                                                          directory)))
    return found


def index_directory(directory, labels, formats, class_names=None, shuffle=True, seed=None,
                    follow_links=False):
    """(file paths, int32 labels or the given labels, class names) as Keras indexes them:
    with `labels="inferred"` each sorted subdirectory not starting with "." is a class; files
    are listed class by class, then shuffled with `np.random.RandomState(seed)`."""
    if labels != "inferred":
        subdirs = [""]
        class_names = subdirs
    else:
        subdirs = [name for name in sorted(os.listdir(directory))
                   if os.path.isdir(os.path.join(directory, name)) and not name.startswith(".")]
        if not class_names:
            class_names = subdirs
        elif set(class_names) != set(subdirs):
            raise ValueError("The `class_names` passed did not match the names of the "
                             "subdirectories of the target directory. Expected: %s, but "
                             "received: %s" % (subdirs, class_names))
    class_indices = {name: index for index, name in enumerate(class_names)}
    filenames, inferred = [], []
    for subdir in subdirs:
        files = _files_of_class(os.path.join(directory, subdir), follow_links, formats)
        filenames += files
        inferred += [class_indices[subdir]] * len(files)
    if labels not in ("inferred", None):
        if len(labels) != len(filenames):
            raise ValueError("Expected the lengths of `labels` to match the number of files "
                             "in the target directory. len(labels) is %d while we found %d "
                             "files in directory %s." % (len(labels), len(filenames),
                                                         directory))
        class_names = sorted(set(labels))
    else:
        labels = np.array(inferred, dtype="int32")
    if labels is None:
        print("Found %d files." % len(filenames))
    else:
        print("Found %d files belonging to %d classes." % (len(filenames), len(class_names)))
    file_paths = [os.path.join(directory, name) for name in filenames]
    if shuffle:
        if seed is None:
            seed = np.random.randint(1e6)
        np.random.RandomState(seed).shuffle(file_paths)
        np.random.RandomState(seed).shuffle(labels)
    return file_paths, labels, class_names


def get_training_or_validation_split(samples, labels, validation_split, subset):
    """The training part (all but the last `int(validation_split * n)`) or the validation
    part (those last ones) of `samples` and `labels`."""
    if not validation_split:
        return samples, labels
    num_val_samples = int(validation_split * len(samples))
    if subset == "training":
        print("Using %d files for training." % (len(samples) - num_val_samples))
        return samples[:-num_val_samples], labels[:-num_val_samples]
    if subset == "validation":
        print("Using %d files for validation." % num_val_samples)
        return samples[-num_val_samples:], labels[-num_val_samples:]
    raise ValueError('`subset` must be either "training" or "validation", received: %s'
                     % (subset,))


def labels_to_dataset(labels, label_mode, num_classes):
    """Labels as Keras hands them out: int32 (`"int"`), one-hot float32
    (`"categorical"`) or float32 of shape (1,) (`"binary"`)."""
    labels = np.asarray(labels)
    if label_mode == "binary":
        return Dataset.from_tensor_slices(labels.astype("float32")[:, None])
    if label_mode == "categorical":
        return Dataset.from_tensor_slices(labels).map(
            lambda label: array_ops.one_hot(label, num_classes))
    return Dataset.from_tensor_slices(labels)


def batch_and_shuffle(dataset, batch_size, shuffle, seed):
    """Keras' last step: shuffle (buffer `8 * batch_size`, or 1024 unbatched), batch,
    prefetch."""
    if shuffle:
        dataset = dataset.shuffle(buffer_size=1024 if batch_size is None else batch_size * 8,
                                  seed=seed)
    if batch_size is not None:
        dataset = dataset.batch(batch_size)
    return dataset.prefetch(-1)


def split_for_subsets(paths, labels, validation_split, subset):
    """[(paths, labels)] for `subset` (two pairs, training then validation, for "both")."""
    if subset != "both":
        return [get_training_or_validation_split(paths, labels, validation_split, subset)]
    return [get_training_or_validation_split(paths, labels, validation_split, part)
            for part in ("training", "validation")]


def finish_datasets(parts, make_dataset, class_names, batch_size, shuffle, seed, subset,
                    empty_message):
    """The dataset of each (paths, labels) part, batched and shuffled as Keras does (the
    validation part of "both" is not shuffled), with `class_names` and `file_paths`; a list
    of two for `subset="both"`."""
    datasets = []
    for index, (paths, labels) in enumerate(parts):
        if not len(paths):
            raise ValueError(empty_message)
        dataset = batch_and_shuffle(make_dataset(paths, labels), batch_size,
                                    shuffle and index == 0, seed)
        dataset.class_names = class_names
        dataset.file_paths = paths
        datasets.append(dataset)
    return datasets if subset == "both" else datasets[0]
