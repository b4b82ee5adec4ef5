"""TF 1.x `tf.contrib.learn`: the MNIST reader, VocabularyProcessor and ModeKeys."""
from tfcompat.contrib.learn import datasets, model_fn, preprocessing  # noqa: F401
